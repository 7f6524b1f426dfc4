// Rust source (a CLI crate's module) from a case's vocabulary.
import { pascal, phrase, snake, type Vocabulary } from "./names.js";
import type { Prng } from "./prng.js";

function rsFunction(rng: Prng, vocab: Vocabulary): string[] {
  const words = phrase(rng, vocab);
  const name = snake(...words);
  const noun = words[1];
  const T = pascal(noun);
  switch (rng.int(0, 2)) {
    case 0:
      return [
        `pub fn ${name}(input: &str) -> Result<Vec<${T}>, ParseError> {`,
        `    let mut out = Vec::with_capacity(${rng.int(1, 16) * 16});`,
        `    for (lineno, line) in input.lines().enumerate() {`,
        `        let line = line.trim();`,
        `        if line.is_empty() || line.starts_with('#') {`,
        `            continue;`,
        `        }`,
        `        let item = ${T}::from_str(line).map_err(|e| ParseError::at(lineno + 1, e))?;`,
        `        out.push(item);`,
        `    }`,
        `    Ok(out)`,
        `}`,
      ];
    case 1:
      return [
        `impl ${pascal(...words)} {`,
        `    pub fn new(capacity: usize) -> Self {`,
        `        Self { items: VecDeque::with_capacity(capacity), capacity, dropped: 0 }`,
        `    }`,
        ``,
        `    pub fn push(&mut self, item: ${T}) {`,
        `        if self.items.len() == self.capacity {`,
        `            self.items.pop_front();`,
        `            self.dropped += 1;`,
        `        }`,
        `        self.items.push_back(item);`,
        `    }`,
        `}`,
      ];
    default:
      return [
        `fn ${name}(args: &Args, out: &mut impl Write) -> anyhow::Result<()> {`,
        `    let files = collect_inputs(&args.paths)?;`,
        `    for path in &files {`,
        `        let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;`,
        `        for ${noun} in text.lines().filter(|l| l.contains(&args.${rng.pick(["pattern", "needle", "filter"])})) {`,
        `            writeln!(out, "{}: {}", path.display(), ${noun})?;`,
        `        }`,
        `    }`,
        `    Ok(())`,
        `}`,
      ];
  }
}

export function rsFile(rng: Prng, vocab: Vocabulary, lines: number): string {
  const out = [`use std::collections::VecDeque;`, `use std::fs;`, `use std::io::Write;`, `use std::str::FromStr;`, ``, `use anyhow::Context;`, ``, `use crate::error::ParseError;`, ``];
  while (out.length < lines) out.push(...rsFunction(rng, vocab), "");
  return out.join("\n");
}
