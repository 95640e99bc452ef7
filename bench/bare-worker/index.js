// The floor: a Worker that returns a constant response, run by the same wrangler dev in the same session.
// `/d1` adds exactly one D1 round trip (`SELECT 1`): the floor of any route that reads D1 at all.
// `/sized?bytes=N` returns a constant JSON body of N bytes: the floor of any route whose answer is that large.
// `/d1-session` is `/d1` in a D1 session started at the primary, as every API write runs (src/db/session.ts).
// `/d1-write` is one INSERT (one committed write transaction) in such a session.
// `/d1-create-write` is that write batch alone: the D1 work of a create whose rows the isolate remembers (one round
// trip; the API's adds a guard to the post's INSERT, src/services/posts/references.ts).
// `/d1-create` is the D1 work of `POST /api/posts` with no app code: in such a session, one read batch (accounts and
// labels by a JSON list of ids) and one write batch (the post, 3 platform rows and 2 label links, each list one
// `INSERT … SELECT … FROM json_each(?)`), on tables shaped like the API's (no triggers): the floor of a create that
// makes one read and one write round trip.
const sized = new Map();
let ready;
const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS acc (id TEXT PRIMARY KEY, ws TEXT NOT NULL, platform TEXT, name TEXT, username TEXT, avatar TEXT, active INTEGER, status TEXT, meta TEXT, created_at INTEGER, updated_at INTEGER)",
  "CREATE TABLE IF NOT EXISTS lab (id TEXT PRIMARY KEY, ws TEXT NOT NULL, name TEXT, color TEXT, created_at INTEGER, updated_at INTEGER)",
  "CREATE TABLE IF NOT EXISTS post (id TEXT PRIMARY KEY, ws TEXT NOT NULL, content TEXT, status TEXT, scheduled_at INTEGER, created_at INTEGER, updated_at INTEGER)",
  "CREATE INDEX IF NOT EXISTS post_ws ON post (ws, scheduled_at, created_at)",
  "CREATE TABLE IF NOT EXISTS pp (id TEXT PRIMARY KEY, post_id TEXT NOT NULL REFERENCES post(id) ON DELETE CASCADE, acc_id TEXT NOT NULL, platform TEXT, content_type TEXT, status TEXT, enabled INTEGER, meta TEXT, display_name TEXT, display_username TEXT, display_avatar TEXT, position INTEGER, created_at INTEGER, updated_at INTEGER)",
  "CREATE INDEX IF NOT EXISTS pp_post ON pp (post_id)",
  "CREATE TABLE IF NOT EXISTS pl (post_id TEXT NOT NULL REFERENCES post(id) ON DELETE CASCADE, label_id TEXT NOT NULL, PRIMARY KEY (post_id, label_id))",
];
const ACCOUNTS = ["a1", "a2", "a3"];
const LABELS = ["l1", "l2"];

async function setup(db) {
  await db.batch(SCHEMA.map((q) => db.prepare(q)));
  await db.batch([
    ...ACCOUNTS.map((id) =>
      db
        .prepare("INSERT OR IGNORE INTO acc VALUES (?, 'ws', 'x', 'Bench', 'bench', '', 1, 'connected', '{}', 0, 0)")
        .bind(id),
    ),
    ...LABELS.map((id) => db.prepare("INSERT OR IGNORE INTO lab VALUES (?, 'ws', ?, '#123456', 0, 0)").bind(id, id)),
  ]);
}

/** The create's write batch: the post, its platform rows and its label links, each list one statement. */
function writeBatch(db, accounts, labels) {
  const id = crypto.randomUUID();
  const now = Date.now();
  const rows = accounts.map((a, i) => [
    crypto.randomUUID(),
    id,
    a.id,
    a.platform,
    "x_post",
    "pending",
    1,
    "{}",
    a.name,
    a.username,
    a.avatar,
    i,
    now,
    now,
  ]);
  return {
    id,
    platforms: rows.length,
    labels: labels.length,
    statements: [
      db.prepare("INSERT INTO post VALUES (?, 'ws', 'Bench create', 'draft', NULL, ?, ?)").bind(id, now, now),
      db
        .prepare(
          "INSERT INTO pp SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]'), json_extract(value, '$[7]'), json_extract(value, '$[8]'), json_extract(value, '$[9]'), json_extract(value, '$[10]'), json_extract(value, '$[11]'), json_extract(value, '$[12]'), json_extract(value, '$[13]') FROM json_each(?)",
        )
        .bind(JSON.stringify(rows)),
      db.prepare("INSERT INTO pl SELECT ?, value FROM json_each(?)").bind(id, JSON.stringify(labels.map((l) => l.id))),
    ],
  };
}

/** What the isolate remembers of the accounts and labels (the read of `/d1-create`, done once). */
let remembered;

async function create(db) {
  const [accounts, labels] = await db.batch([
    db
      .prepare("SELECT * FROM acc WHERE id IN (SELECT value FROM json_each(?)) AND ws = 'ws'")
      .bind(JSON.stringify(ACCOUNTS)),
    db
      .prepare("SELECT * FROM lab WHERE id IN (SELECT value FROM json_each(?)) AND ws = 'ws'")
      .bind(JSON.stringify(LABELS)),
  ]);
  remembered = { accounts: accounts.results, labels: labels.results };
  const write = writeBatch(db, accounts.results, labels.results);
  await db.batch(write.statements);
  return { id: write.id, platforms: write.platforms, labels: write.labels };
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/d1") {
      const row = await env.DB.prepare("SELECT 1 AS one").first();
      return new Response(JSON.stringify({ status: "ok", one: row.one }), {
        headers: { "Content-Type": "application/json" },
      });
    }
    if (url.pathname === "/d1-session") {
      const row = await env.DB.withSession("first-primary").prepare("SELECT 1 AS one").first();
      return new Response(JSON.stringify({ status: "ok", one: row.one }), {
        headers: { "Content-Type": "application/json" },
      });
    }
    if (url.pathname === "/d1-write") {
      ready ??= setup(env.DB);
      await ready;
      const now = Date.now();
      await env.DB.withSession("first-primary")
        .prepare("INSERT INTO post VALUES (?, 'ws', 'Bench write', 'draft', NULL, ?, ?)")
        .bind(crypto.randomUUID(), now, now)
        .run();
      return new Response('{"status":"ok"}', { status: 201, headers: { "Content-Type": "application/json" } });
    }
    if (url.pathname === "/d1-create-write") {
      ready ??= setup(env.DB);
      await ready;
      const db = env.DB.withSession("first-primary");
      if (!remembered) await create(db);
      const write = writeBatch(db, remembered.accounts, remembered.labels);
      await db.batch(write.statements);
      const post = { id: write.id, platforms: write.platforms, labels: write.labels };
      return new Response(JSON.stringify(post), { status: 201, headers: { "Content-Type": "application/json" } });
    }
    if (url.pathname === "/d1-create") {
      ready ??= setup(env.DB);
      await ready;
      const post = await create(env.DB.withSession("first-primary"));
      return new Response(JSON.stringify(post), { status: 201, headers: { "Content-Type": "application/json" } });
    }
    if (url.pathname === "/sized") {
      const bytes = Math.min(10_000_000, Number(url.searchParams.get("bytes")) || 0);
      if (!sized.has(bytes)) sized.set(bytes, `{"data":"${"x".repeat(Math.max(0, bytes - 11))}"}`);
      return new Response(sized.get(bytes), { headers: { "Content-Type": "application/json" } });
    }
    return new Response('{"status":"ok"}', { headers: { "Content-Type": "application/json" } });
  },
};
