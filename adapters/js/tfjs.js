// TensorFlow.js as this directory uses it: tfjs-core with its CPU backend and its gradient
// functions, loaded from its ES modules (tfjs_loader.js says why), the backend ready.
//
//     import { tf } from "./tfjs.js";
//
// Node does not load tfjs-core's gradients by itself: `require("@tensorflow/tfjs-core")` gives
// a CommonJS bundle without them, and tf.grads then fails with "gradient function not found".

import { register } from "node:module";

register("./tfjs_loader.js", import.meta.url);

/** The tfjs-core module, with the CPU backend set and every gradient registered. */
export const tf = await import("@tensorflow/tfjs-core");
await import("@tensorflow/tfjs-backend-cpu");
await import("@tensorflow/tfjs-core/dist/register_all_gradients");

await tf.setBackend("cpu");
quietly(() => tf.tensor([0]).dispose()); // the first tensor brings advice to install tfjs-node

/** Runs `fn` with console.warn silenced (TF.js's one-time advice and override notices). */
export function quietly(fn) {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return fn();
  } finally {
    console.warn = warn;
  }
}
