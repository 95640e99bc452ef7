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
