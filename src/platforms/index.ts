// Imports every adapter so it registers itself. Each platform adds one line here.
import "./linkedin/adapter";
import "./facebook/adapter";
import "./instagram/adapter";
import "./threads/adapter";
import "./tiktok/adapter";
import "./youtube/adapter";
import "./pinterest/adapter";
import "./x/adapter";
import "./bluesky/adapter";
import "./mastodon/adapter";

export { adapterFor } from "./registry";

// Connect code (issue 18), one line per network folder.
import "./x/connect";
import "./linkedin/connect";
import "./facebook/connect";
import "./instagram/connect";
import "./threads/connect";
import "./tiktok/connect";
import "./youtube/connect";
import "./pinterest/connect";
import "./mastodon/connect";

export { allConnectors, connectorFor } from "./registry";
