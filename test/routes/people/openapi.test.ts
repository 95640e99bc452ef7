import { describe, expect, it } from "vitest";
import { call } from "../../support/harness";

/** The web pages call these routes through the SDK generated from the served document (issue 27). */
describe("the People routes in the OpenAPI document", () => {
  it("lists every People operation with its 4xx answers, and both ways in on every API-key route", async () => {
    const doc = (await call("GET", "/api/openapi.json")).body;
    const ops: Record<string, string> = {
      "post /api/session": "signIn",
      "delete /api/session": "signOut",
      "get /api/me": "getMe",
      "get /api/members": "listMembers",
      "patch /api/members/{id}": "updateMember",
      "delete /api/members/{id}": "removeMember",
      "post /api/invitations": "createInvitation",
      "get /api/invitations": "listInvitations",
      "delete /api/invitations/{id}": "revokeInvitation",
      "post /api/invitations/lookup": "lookupInvitation",
      "post /api/invitations/accept": "acceptInvitation",
    };
    for (const [key, operationId] of Object.entries(ops)) {
      const [method, path] = key.split(" ") as [string, string];
      const op = doc.paths[path]?.[method];
      expect(op?.operationId, key).toBe(operationId);
      expect(op.tags).toEqual(["People"]);
      const fourXX = Object.keys(op.responses).filter((s) => s.startsWith("4"));
      expect(fourXX.length, key).toBeGreaterThan(0);
      for (const status of fourXX)
        expect(op.responses[status].content["application/json"].schema.$ref, `${key} ${status}`).toMatch(
          /#\/components\/schemas\/(Error|ValidationError)$/,
        );
    }
    // The token never travels in a path (issue 35).
    expect(doc.paths["/api/invitations/lookup/{token}"]).toBeUndefined();
    expect(doc.components.securitySchemes.Session).toEqual(
      expect.objectContaining({ type: "apiKey", in: "cookie", name: "__Host-esp-session" }),
    );
    // Every route an API key reaches is reachable signed in too, with its area and X-Workspace-Id.
    expect(doc.paths["/api/posts"].post.security).toEqual([{ Bearer: ["publish"] }, { Session: ["content"] }]);
    expect(doc.paths["/api/api-keys"].post.security).toEqual([{ Bearer: ["publish"] }, { Session: ["keys"] }]);
    expect(doc.paths["/api/webhooks"].get.security).toEqual([{ Bearer: ["read"] }, { Session: ["webhooks"] }]);
    expect(doc.paths["/api/members"].get.security).toEqual([{ Bearer: ["full"] }, { Session: ["members"] }]);
    expect(doc.paths["/api/posts"].get.parameters).toContainEqual({ $ref: "#/components/parameters/WorkspaceId" });
    expect(doc.paths["/api/session"].post.parameters).not.toContainEqual({
      $ref: "#/components/parameters/WorkspaceId",
    });
  });
});
