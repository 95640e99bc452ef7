// A free TCP port on 127.0.0.1, for the local servers the sandbox, the tests and the benches start.
import { createServer } from "node:http";

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
