// Setup file of the `workerd-fresh` project (vitest.config.ts): each of its files starts on empty storage.
import { emptyStorage } from "./fresh-storage";

await emptyStorage();
