// Imports every adapter so it registers itself. Each platform helper adds one line here.
import "./linkedin/adapter";
import "./facebook/adapter";
import "./instagram/adapter";
import "./threads/adapter";

export { adapterFor } from "./registry";

import "./tiktok/adapter";
import "./youtube/adapter";
import "./pinterest/adapter";
