// A module loader hook (node:module register) that loads TensorFlow.js from its ES module
// distribution, `dist/index.js` of @tensorflow/tfjs-core and @tensorflow/tfjs-backend-cpu.
//
// Why: the gradient functions live only in tfjs-core's ES modules
// (`dist/register_all_gradients.js`, which a bundler includes); the CommonJS bundle that Node
// loads by default (`dist/tf-core.node.js`) has none, so every tf.grads call fails with
// "gradient function not found". Those ES modules are written for bundlers: their imports omit
// the ".js" extension and their package.json does not say "type": "module". This hook adds the
// extension, treats the files as ES modules (giving the one that calls `require` its own), and maps the two package names to their ES entry
// points, so that core, the CPU backend and the gradients share one tfjs-core instance.

const PACKAGES = ["@tensorflow/tfjs-core", "@tensorflow/tfjs-backend-cpu"];
const IN_TFJS = /\/node_modules\/@tensorflow\/tfjs-(core|backend-cpu)\/dist\//;

export async function resolve(specifier, context, nextResolve) {
  if (PACKAGES.includes(specifier)) {
    const main = await nextResolve(`${specifier}/package.json`, context);
    return { url: new URL("dist/index.js", main.url).href, shortCircuit: true };
  }
  const fromTfjs = context.parentURL !== undefined && IN_TFJS.test(context.parentURL);
  const relative = specifier.startsWith("./") || specifier.startsWith("../");
  const deep = PACKAGES.some((name) => specifier.startsWith(`${name}/dist/`));
  if ((fromTfjs && relative) || deep) {
    if (!specifier.endsWith(".js")) {
      try {
        return await nextResolve(`${specifier}.js`, context);
      } catch {
        return nextResolve(`${specifier}/index.js`, context); // a directory import
      }
    }
  }
  return nextResolve(specifier, context);
}

// Node's platform file (platform_node.js) calls CommonJS `require`, which an ES module lacks.
const REQUIRE = 'import { createRequire as __tcCreateRequire } from "node:module";\n' +
                "const require = __tcCreateRequire(import.meta.url);\n";

export async function load(url, context, nextLoad) {
  if (IN_TFJS.test(url) && url.endsWith(".js") && !url.endsWith(".node.js")) {
    const loaded = await nextLoad(url, { ...context, format: "module" });
    let source = String(loaded.source);
    if (/\brequire\(/.test(source)) source = REQUIRE + source;
    return { format: "module", source, shortCircuit: true };
  }
  return nextLoad(url, context);
}
