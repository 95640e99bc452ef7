import { deleteConnectLink } from "../../services/connect/delete-connect-link";
import type { App } from "../../types";
import { authedRoute, noContent } from "../openapi";
import { ConnectLinkParam } from "./schemas";

const route = authedRoute({
  method: "delete",
  path: "/api/connect-links/{id}",
  operationId: "deleteConnectLink",
  tags: ["Connect accounts"],
  summary: "Delete a connect link: its page answers 404 and flows it started are refused when they come back",
  request: { params: ConnectLinkParam },
  responses: { 204: noContent },
});

export function registerDeleteConnectLink(app: App) {
  app.openapi(route, async (c) => {
    await deleteConnectLink(c.get("workspace"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
