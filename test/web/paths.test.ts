import { describe, expect, it } from "vitest";
import { href, matchRoute, pathUnderBase } from "../../web/lib/paths";

/** The dashboard router's pure parts (web/lib/paths.ts): URLs under /app and route parameters. */
describe("dashboard paths", () => {
  it("maps dashboard paths to URLs under /app and back", () => {
    expect([href("/"), href("/posts"), href("/posts?page=2"), href("/?x=1")]).toEqual([
      "/app",
      "/app/posts",
      "/app/posts?page=2",
      "/app?x=1",
    ]);
    expect(["/app", "/app/", "/app/posts/1", "/elsewhere"].map(pathUnderBase)).toEqual([
      "/",
      "/",
      "/posts/1",
      "/elsewhere",
    ]);
  });

  it("matches routes and decodes their parameters", () => {
    expect(matchRoute("/posts/:id", "/posts/42")).toEqual({ id: "42" });
    expect(matchRoute("/posts/:id", "/posts/a%20b")).toEqual({ id: "a b" });
    expect(matchRoute("/posts/:id", "/posts/%E0")).toBeNull();
    expect(matchRoute("/posts/:id", "/posts")).toBeNull();
    expect(matchRoute("/posts/:id", "/posts/1/extra")).toBeNull();
    expect(matchRoute("/posts", "/posts/")).toEqual({});
    expect(matchRoute("/calendar", "/posts")).toBeNull();
  });
});
