// The dotenv format wrangler reads (`.dev.vars`, `--env-file`): read ours, and write values so that
// wrangler reads them back unchanged. wrangler expands `$NAME` in env files (dotenv-expand), so a
// literal `$` is written as `\$`; the quote is one the value does not contain.

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

/** Parses KEY=VALUE lines (comments, blank lines, `export`, single or double quotes). */
export function parseEnvFile(text) {
  const out = {};
  text.split(/\r?\n/).forEach((line, i) => {
    if (/^\s*(#.*)?$/.test(line)) return;
    const m = LINE.exec(line);
    if (!m) throw new Error(`line ${i + 1} is not NAME=value`);
    let value = m[2];
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, "");
    out[m[1]] = value;
  });
  return out;
}

export function serializeEnvFile(vars) {
  return Object.entries(vars)
    .map(([name, value]) => {
      if (/[\r\n]/.test(value)) throw new Error(`${name} must be a single line`);
      const quote = ["'", '"', "`"].find((q) => !value.includes(q));
      if (!quote) throw new Error(`${name} contains all three quote characters, which an env file cannot carry`);
      return `${name}=${quote}${value.replaceAll("$", "\\$")}${quote}`;
    })
    .join("\n")
    .concat("\n");
}
