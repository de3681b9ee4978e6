// Parses a Mermaid diagram read from standard input with Mermaid's own parser and prints what
// it understood as JSON: {"type", "vertices": [{"id", "text", "classes"}], "edges": [{"start",
// "end", "text", "stroke"}]}, labels with their entity codes (#38;) decoded. A diagram that does
// not parse exits with status 1 and the parser's message on standard error.
//
// Mermaid sanitizes labels with DOMPurify, which needs a DOM: jsdom provides one, so nothing
// here starts or downloads a browser.
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, logLevel: 'fatal' });

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const text = Buffer.concat(chunks).toString('utf8');

const decode = (label) =>
  String(label ?? '')
    .replace(/\uFB02\xB0\xB0(\d+)\xB6\xDF/g, (_, code) => String.fromCodePoint(Number(code)))
    .replace(/\uFB02\xB0(\w+)\xB6\xDF/g, (_, name) => `&${name};`);

try {
  const parsed = await mermaid.parse(text);
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
  const db = diagram.db;
  const vertices = [...db.getVertices().values()].map((v) => ({
    id: v.id,
    text: decode(v.text),
    classes: v.classes ?? [],
  }));
  const edges = db.getEdges().map((e) => ({
    start: e.start,
    end: e.end,
    text: decode(e.text),
    stroke: e.stroke ?? '',
    style: e.style ?? [],
  }));
  process.stdout.write(JSON.stringify({ type: parsed.diagramType, vertices, edges }) + '\n');
} catch (error) {
  process.stderr.write(`${error?.message ?? error}\n`);
  process.exit(1);
}
