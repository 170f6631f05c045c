// `npm run vsix`: dist/downcity.vsix, built by @vscode/vsce from a staging folder that
// holds only what ships. vsce globs its whole working folder before it applies
// .vscodeignore, and the project folder holds .e2e/ (code-server's ~300 MB), so it runs
// in a fresh temporary folder (one per run, so parallel packagings never collide) with the bundles, media/, the licence, the changelog, the Marketplace
// README and the native zstd addon; .vscodeignore still filters what it is given.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../test/support/workbench/code-server";

const NATIVE = ["@mongodb-js/zstd", `@mongodb-js/zstd-${process.platform}-${process.arch}-gnu`];
const COPIED = [".vscodeignore", "LICENSE", "CHANGELOG.md", "MARKETPLACE.md", "media", "dist"];

function main(): void {
  const stage = mkdtempSync(join(tmpdir(), "downcity-vsix-"));
  try {
    packageFrom(stage);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function packageFrom(stage: string): void {
  for (const entry of COPIED) {
    cpSync(join(PROJECT_ROOT, entry), join(stage, entry), {
      recursive: true,
      filter: (source) => !source.includes(`${join("dist", "host-tests")}`) && !/\.vsix(\.\d+\.partial)?$/.test(source),
    });
  }
  for (const name of NATIVE) {
    const source = join(PROJECT_ROOT, "node_modules", name);
    if (!existsSync(source)) throw new Error(`${source} is missing: run npm install`);
    cpSync(source, join(stage, "node_modules", name), { recursive: true });
  }
  // Everything else is bundled by esbuild: the manifest lists only the native addon, and
  // no scripts (vsce would run vscode:prepublish in the stage).
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8"));
  const zstd = manifest.dependencies["@mongodb-js/zstd"];
  delete manifest.scripts;
  delete manifest.devDependencies;
  delete manifest.bin;
  manifest.dependencies = { "@mongodb-js/zstd": zstd };
  writeFileSync(join(stage, "package.json"), JSON.stringify(manifest, null, 2));

  // Written beside its place and renamed into it: a test installing the VSIX while another packages
  // it (two UI tests of one checkout at once) reads a whole file, the old or the new, never a half.
  const out = join(PROJECT_ROOT, "dist", "downcity.vsix");
  const partial = `${out}.${process.pid}.partial`;
  const vsce = join(PROJECT_ROOT, "node_modules", ".bin", "vsce");
  try {
    execFileSync(vsce, ["package", "--no-yarn", "--readme-path", "MARKETPLACE.md", "--out", partial], {
      cwd: stage,
      stdio: "inherit",
    });
    renameSync(partial, out);
  } finally {
    rmSync(partial, { force: true });
  }
}

main();
