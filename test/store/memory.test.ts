import { memoryStore } from "../../src/store/memory.js";
import { describeStoreContract } from "./store-contract.js";

// Memory has no "place": every store is its own, so the reopen tests do not apply.
describeStoreContract("memoryStore", () => memoryStore(), { persistent: false });
