// jsquash sets `self.location = {href: ""}`; libraries that build URLs from `location` at start-up then throw
// "Invalid URL string". A complete stand-in, installed before anything else loads, keeps both working.
const g = globalThis as unknown as { location?: unknown };
if (!g.location) g.location = { href: "", origin: "null", pathname: "/", search: "" };

export {};
