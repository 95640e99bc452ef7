import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../sdk/index";
import { webLink } from "../../src/lib/web-link";
import { api } from "../api";
import { Field, FormErrors } from "../components/form";
import { networkName } from "../components/network";
import { DeletePostControl, DuplicateButton } from "../components/post-actions";
import { ErrorState, Loading } from "../components/states";
import { TimeZoneOptions } from "../components/time-zone-options";
import { preferredTimeZone, setPreferredTimeZone } from "../components/time-zone-pref";
import {
  type ComposeAction,
  type ComposerRow,
  createBody,
  type MetaFieldInfo,
  metaValues,
  type NetworkRules,
  type RepeatDraft,
  repeatDraftOf,
  repeatRequestOf,
  rowOfPath,
  shownFields,
  updateBody,
} from "../lib/compose";
import { fieldId, type MappedErrors, mapFieldErrors } from "../lib/field-errors";
import { apiTimeToInput, formatApiTime, inputToApiTime, toApiTime } from "../lib/time";
import { Link, navigate } from "../router";
import type { PageProps } from "../routes";
import { canEdit } from "../session";
import { useSession } from "../session-context";
import { type MediaItem, MediaSection } from "./composer/media";
import { AddToQueue, useQueueChoice } from "./composer/queue";
import { RepeatSection } from "./composer/repeat";
import { CounterText, measure, type PlatformEntry, Preview, RowEditor } from "./composer/row";
import { imageSize, uploadFile } from "./composer/upload";
import { LabelChip } from "./settings/labels";

type Account = Schema<"SocialAccount">;
type Post = Schema<"Post">;
type Label = Schema<"Label">;
type Signature = Schema<"Signature">;
type Queue = Schema<"Queue">;

interface Loaded {
  accounts: Account[];
  platforms: PlatformEntry[];
  labels: Label[];
  signatures: Signature[];
  /** Issue 37: the workspace's queues, for "Add to queue". */
  queues: Queue[];
  post: Post | null;
  /** The queue the page was opened for (`/compose?queue=<id>`, from the Queue page). */
  wantedQueue: string | null;
  /** The exact slot it was opened for (`&slot=<Y-m-d H:i:s>`, a free slot of the calendar's week view). */
  wantedSlot: string | null;
  /** Opened on a duplicate just made (`?duplicated=1`, the post page's "Duplicate as a new draft"; issue 40). */
  duplicated: boolean;
}

/** Loads what the composer needs; `/compose/<id>` edits that post. */
export default function ComposePage({ params, location }: PageProps) {
  const { membership } = useSession();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const postId = params.id ?? null;
  // A post the composer just created keeps this page (and its state); only another post reloads it.
  const loadedFor = useRef<string | null | undefined>(undefined);

  useEffect(() => {
    if (loadedFor.current !== undefined && (loadedFor.current === postId || loaded?.post?.id === postId)) return;
    loadedFor.current = postId;
    setLoaded(null);
    setFailure(null);
    void (async () => {
      const [accounts, catalog, labels, signatures, queues, post] = await Promise.all([
        api.GET("/api/social-accounts"),
        api.GET("/api/content-types"),
        api.GET("/api/labels"),
        api.GET("/api/signatures"),
        api.GET("/api/queues"),
        postId ? api.GET("/api/posts/{post}", { params: { path: { post: postId } } }) : Promise.resolve(null),
      ]);
      if (!accounts.data || !catalog.data || !labels.data || !signatures.data || !queues.data || (post && !post.data)) {
        const failed = [accounts, catalog, labels, signatures, queues, post].find((r) => r && !r.data);
        setFailure(
          post && post.response.status === 404
            ? "This post does not exist (it may have been deleted)."
            : errorMessage(failed?.error, "The composer could not be loaded."),
        );
        return;
      }
      setLoaded({
        accounts: accounts.data,
        platforms: catalog.data.platforms,
        labels: labels.data,
        signatures: signatures.data,
        queues: queues.data,
        post: post?.data ?? null,
        wantedQueue: location.query.get("queue"),
        wantedSlot: location.query.get("slot"),
        duplicated: location.query.get("duplicated") === "1",
      });
    })();
  }, [postId, attempt]);

  if (!canEdit(membership.role))
    return (
      <section>
        <h1>Compose</h1>
        <p class="notice">
          Your role in this workspace ({membership.role}) can read posts but not write them. See the{" "}
          <Link to="/calendar">calendar</Link> or the <Link to="/posts">posts</Link>.
        </p>
      </section>
    );
  if (failure)
    return (
      <section>
        <h1>{postId ? "Edit post" : "Compose"}</h1>
        <ErrorState
          message={failure}
          onRetry={() => {
            loadedFor.current = undefined;
            setAttempt(attempt + 1);
          }}
        />
      </section>
    );
  if (!loaded) return <Loading label="Opening the composer…" />;
  return (
    <Composer
      key={loaded.post?.id ?? "new"}
      data={loaded}
      onCreated={(id) => {
        // The address becomes the post's; this composer (and what is typed in it) stays.
        loadedFor.current = id;
        navigate(`/compose/${id}`, { replace: true });
      }}
    />
  );
}

const EDITABLE: Post["status"][] = ["draft", "scheduled", "failed", "partially_published"];

function mediaFromPost(m: Post["media"][number]): MediaItem {
  return {
    key: m.id,
    id: m.id,
    name: m.original_filename,
    type: m.type,
    url: m.url,
    alt: m.alt ?? "",
    savedAlt: m.alt,
    mimeType: m.mime_type,
    size: m.size,
    width: m.width,
    height: m.height,
    durationSeconds: m.duration_seconds,
    progress: null,
    error: null,
  };
}

/** A new target: the account with its network's default content type and the post's own text. */
function newRow(account: Account, spec: PlatformEntry | undefined): ComposerRow {
  return {
    accountId: account.id,
    platform: account.platform,
    rowId: null,
    enabled: true,
    contentType: spec?.default_content_type ?? "",
    ownText: false,
    content: "",
    thread: [],
    firstComment: "",
    meta: {},
  };
}

function rowsFromPost(post: Post, specOf: (p: string) => PlatformEntry | undefined): ComposerRow[] {
  return post.platforms.map((r) => ({
    accountId: r.social_account.id,
    platform: r.platform,
    rowId: r.id,
    enabled: r.enabled,
    contentType: r.content_type,
    ownText: r.content !== undefined,
    content: r.content ?? "",
    thread: (r.thread ?? []).map((t) => ({ content: t.content })),
    firstComment: r.first_comment?.content ?? "",
    meta: metaValues((specOf(r.platform)?.meta_fields ?? []) as MetaFieldInfo[], r.meta),
  }));
}

/** Tab names: the network, or the network and the account when two accounts of one network are picked. */
function tabNames(rows: ComposerRow[], accountName: (id: string) => string): Map<string, string> {
  const names = new Map<string, string>();
  for (const r of rows) {
    const same = rows.filter((o) => o.enabled && o.platform === r.platform).length > 1;
    names.set(r.accountId, same ? `${networkName(r.platform)} (${accountName(r.accountId)})` : networkName(r.platform));
  }
  return names;
}

type Phase =
  | { kind: "idle" }
  | { kind: "saving"; action: ComposeAction }
  | { kind: "publishing"; done: number; total: number }
  | { kind: "done"; message: string; post: Post; problems?: { label: string; problem: string }[] };

let keySeq = 0;

/** An API time's day (`YYYY-MM-DD`) in `zone`: how the Repeat section shows a rule's last day. */
const dayIn = (zone: string) => (utc: string) => (apiTimeToInput(utc, zone) ?? "").slice(0, 10);

const NOTHING_SAVED = "Nothing was saved: what you typed is still here.";

function Composer({ data, onCreated }: { data: Loaded; onCreated: (id: string) => void }) {
  const specOf = (platform: string) => data.platforms.find((p) => p.platform === platform);
  const rules = (platform: string): NetworkRules => {
    const spec = specOf(platform);
    return {
      thread: (spec?.thread_max_items ?? 0) > 0,
      firstComment: (spec?.first_comment_max_length ?? 0) > 0,
      metaFields: (spec?.meta_fields ?? []) as MetaFieldInfo[],
    };
  };
  const [post, setPost] = useState<Post | null>(data.post);
  const [content, setContent] = useState(data.post?.content ?? "");
  const [media, setMedia] = useState<MediaItem[]>((data.post?.media ?? []).map(mediaFromPost));
  const [labelIds, setLabelIds] = useState<string[]>((data.post?.labels ?? []).map((l) => l.id));
  const queueChoice = useQueueChoice(data.queues, data.wantedQueue, data.wantedSlot);
  // A new post starts with its queue's targets (issue 37: the queue's social_account_ids), where still usable.
  const [rows, setRows] = useState<ComposerRow[]>(() =>
    data.post
      ? rowsFromPost(data.post, specOf)
      : (queueChoice.queue?.social_account_ids ?? []).flatMap((id) => {
          const a = data.accounts.find((x) => x.id === id && x.status === "connected" && x.is_active);
          return a ? [newRow(a, specOf(a.platform))] : [];
        }),
  );
  const [zone, setZone] = useState(preferredTimeZone);
  const [when, setWhen] = useState(() => apiTimeToInput(data.post?.scheduled_at, preferredTimeZone()) ?? "");
  // Issue 37: the rule's last day is shown and sent in the composer's zone (the end of that day).
  const untilUtc = (day: string) => (day ? inputToApiTime(`${day}T23:59`, zone) : null);
  const [repeat, setRepeat] = useState<RepeatDraft>(() => repeatDraftOf(data.post?.repeat, dayIn(preferredTimeZone())));
  const [active, setActive] = useState<string>("all");
  const [signature, setSignature] = useState("");
  const [errors, setErrors] = useState<MappedErrors>({ fields: {}, general: [], first: null });
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const focusFirst = useRef(false);
  const statusRef = useRef<HTMLDivElement>(null);

  const accountOf = (id: string) => data.accounts.find((a) => a.id === id);
  const accountName = (id: string) => accountOf(id)?.display_name ?? "account";
  const enabledRows = rows.filter((r) => r.enabled);
  const names = tabNames(rows, accountName);
  const uploading = media.some((m) => m.progress !== null);
  const editable = !post || EDITABLE.includes(post.status);
  const scheduled = post?.status === "scheduled";

  useEffect(() => {
    if (!focusFirst.current) return;
    focusFirst.current = false;
    const el = errors.first ? document.getElementById(fieldId(errors.first)) : null;
    (el ?? document.getElementById("compose-errors"))?.focus();
  }, [errors]);

  useEffect(() => {
    if (phase.kind === "done") statusRef.current?.focus();
  }, [phase.kind]);

  // --- accounts ---
  function toggleAccount(account: Account, on: boolean) {
    const existing = rows.find((r) => r.accountId === account.id);
    if (existing) {
      if (!on && !existing.rowId) setRows(rows.filter((r) => r !== existing));
      else setRows(rows.map((r) => (r === existing ? { ...r, enabled: on } : r)));
      if (!on && active === account.id) setActive("all");
      return;
    }
    setRows([...rows, newRow(account, specOf(account.platform))]);
  }

  // --- media ---
  async function addFiles(files: File[]) {
    for (const file of files) {
      const key = `u${++keySeq}`;
      const abort = new AbortController();
      const size = await imageSize(file);
      const item: MediaItem = {
        key,
        id: null,
        name: file.name,
        type: file.type.startsWith("video/") ? "video" : "image",
        url: file.type.startsWith("image/") ? URL.createObjectURL(file) : null,
        alt: "",
        savedAlt: null,
        mimeType: file.type || null,
        size: file.size,
        width: size?.width ?? null,
        height: size?.height ?? null,
        durationSeconds: null,
        progress: 0,
        error: null,
        abort,
      };
      setMedia((list) => [...list, item]);
      const update = (patch: Partial<MediaItem>) =>
        setMedia((list) => list.map((m) => (m.key === key ? { ...m, ...patch } : m)));
      void uploadFile(file, "", (f) => update({ progress: f }), abort.signal).then((result) => {
        if (result.ok)
          update({
            id: result.stored.media_id,
            type: result.stored.type,
            mimeType: result.stored.mime_type,
            progress: null,
            savedAlt: null,
          });
        else update({ progress: null, error: result.message });
      });
    }
  }

  // --- saving ---
  function fail(error: unknown, fallback: string, note?: string) {
    const state = currentState();
    const mapped = mapFieldErrors(error, shownFields(state, rules));
    if (!mapped.first && mapped.general.length === 0) mapped.general.push(fallback);
    if (note) mapped.general.push(note);
    const row = rowOfPath(mapped.first);
    if (row !== null && rows[row]) setActive(rows[row].accountId);
    else if (mapped.first) setActive("all");
    focusFirst.current = true;
    setErrors(mapped);
    setPhase({ kind: "idle" });
  }

  function currentState() {
    return {
      content,
      mediaIds: media.filter((m) => m.id).map((m) => m.id as string),
      labelIds,
      rows,
      scheduledAt: when ? inputToApiTime(when, zone) : null,
      repeat: repeatRequestOf(repeat, zone, untilUtc),
    };
  }

  async function save(action: ComposeAction) {
    try {
      await saveOnce(action);
    } catch {
      fail(undefined, "The server could not be reached. Check your connection, then save again.");
    }
  }

  async function saveOnce(action: ComposeAction) {
    setErrors({ fields: {}, general: [], first: null });
    setPhase({ kind: "saving", action });
    const state = currentState();
    if (when && !state.scheduledAt)
      return fail({ errors: { scheduled_at: ["Enter a date and a time."] } }, "Enter a date and a time.");
    // Alt texts first (PATCH /api/media/{media}): scheduling checks them against each network's limit.
    const uploaded = media.filter((m) => m.id);
    for (const [i, m] of uploaded.entries()) {
      if ((m.alt.trim() || null) === (m.savedAlt?.trim() || null)) continue;
      const { error, response } = await api.PATCH("/api/media/{media}", {
        params: { path: { media: m.id as string } },
        body: { alt: m.alt.trim() === "" ? null : m.alt },
      });
      if (!response.ok) {
        const messages = (error as { errors?: Record<string, string[]> })?.errors?.alt;
        return fail(
          messages ? { errors: { [`media.${i}.alt`]: messages } } : error,
          "The alt text could not be saved.",
        );
      }
      setMedia((list) => list.map((x) => (x.key === m.key ? { ...x, savedAlt: m.alt.trim() || null } : x)));
    }
    let current = post;
    let currentRows = rows;
    let created: Post | null = null;
    if (!current) {
      // A new post: created as a draft with its targets (POST /api/posts takes no meta), then saved like an edit.
      // Undated unless a time is chosen; when scheduling, the chosen time goes in the POST so a time gone by is
      // refused before anything exists.
      const { data: made, error } = await api.POST("/api/posts", {
        body: createBody(content, rows, action === "schedule" ? state.scheduledAt : null),
      });
      if (!made) return fail(error, "The post could not be created.", NOTHING_SAVED);
      created = made;
      current = made;
      currentRows = rows.map((r) => ({
        ...r,
        rowId: made.platforms.find((p) => p.social_account.id === r.accountId)?.id ?? null,
      }));
    }
    // "Publish now" goes out now: the post's time becomes now, so the calendar and the list find it where it went.
    const scheduledAt = action === "publish" ? toApiTime(Date.now()) : state.scheduledAt;
    const body = updateBody(
      { ...state, scheduledAt, rows: currentRows },
      action,
      rules,
      queueChoice.queue?.id,
      queueChoice.exactAt,
    );
    const { data: saved, error } = await api.PUT("/api/posts/{post}", {
      params: { path: { post: current.id } },
      body,
    });
    if (!saved) {
      if (!created) return fail(error, "The post could not be saved.", NOTHING_SAVED);
      // A refusal saves nothing (issue 35): the draft made for this try is deleted again, and everything typed —
      // the per-network texts too — stays on screen for the next try.
      const removed = await api
        .DELETE("/api/posts/{post}", { params: { path: { post: created.id } } })
        .then((r) => r.response.ok)
        .catch(() => false);
      if (removed) return fail(error, "The post could not be saved.", NOTHING_SAVED);
      // Not removed (the connection dropped): the draft exists with the shared text only; the next save edits it.
      setPost(created);
      setRows(currentRows);
      onCreated(created.id);
      return fail(
        error,
        "The post could not be saved.",
        "A draft with the shared text only was left behind; saving again updates it with everything typed here.",
      );
    }
    if (created) onCreated(created.id);
    if (action === "queue") {
      queueChoice.refresh();
      setWhen(apiTimeToInput(saved.scheduled_at, zone) ?? "");
    }
    setPost(saved);
    setRows(rowsFromPost(saved, specOf));
    // The rule as the server stored it (issue 37): what the form shows is what the post will do.
    setRepeat(repeatDraftOf(saved.repeat, dayIn(zone)));
    setMedia((list) => {
      const fresh = saved.media.map(mediaFromPost);
      // Keep failed uploads on screen so their message stays; everything else is the server's.
      return [...fresh, ...list.filter((m) => m.error)];
    });
    if (action === "publish") return follow(saved);
    // A draft is not checked by the rules: the server's preview says what would stop it (with a Mastodon
    // instance's own limits, which the browser does not know).
    const problems: { label: string; problem: string }[] = [];
    if (action === "draft") {
      const { data: preview } = await api.GET("/api/posts/{post}/preview", { params: { path: { post: saved.id } } });
      for (const item of preview ?? []) {
        const r = saved.platforms.find((x) => x.id === item.post_platform_id);
        const label = r ? (names.get(r.social_account.id) ?? networkName(r.platform)) : networkName(item.platform);
        for (const problem of item.problems) problems.push({ label, problem });
      }
    }
    const moved = action === "draft" && post?.status === "scheduled";
    setPhase({
      kind: "done",
      post: saved,
      problems,
      message:
        saved.status === "scheduled"
          ? action === "queue"
            ? `Added to the queue “${queueChoice.queue?.name}”: goes out ${formatApiTime(saved.scheduled_at, zone)} (${zone}).`
            : action === "save"
              ? `Changes saved. Still scheduled for ${formatApiTime(saved.scheduled_at, zone)} (${zone}).`
              : `Scheduled for ${formatApiTime(saved.scheduled_at, zone)} (${zone}).`
          : moved
            ? `Moved to drafts: it no longer goes out${problems.length > 0 ? ". Before it can be scheduled or published:" : " until it is scheduled again."}`
            : problems.length > 0
              ? "Saved as a draft. Before it can be scheduled or published:"
              : "Saved as a draft. It can be scheduled or published as it is.",
    });
  }

  /** Publishing: the post's rows, polled until none is publishing (at most about two minutes). */
  async function follow(p: Post) {
    let latest = p;
    const total = latest.platforms.filter((r) => r.enabled).length;
    for (let i = 0; i < 80 && latest.status === "publishing"; i++) {
      const done = latest.platforms.filter(
        (r) => r.enabled && (r.status === "published" || r.status === "failed"),
      ).length;
      setPhase({ kind: "publishing", done, total });
      await new Promise((r) => setTimeout(r, 1500));
      const { data } = await api.GET("/api/posts/{post}", { params: { path: { post: p.id } } });
      if (data) latest = data;
    }
    setPost(latest);
    setPhase({
      kind: "done",
      post: latest,
      message:
        latest.status === "published"
          ? "Published on every network."
          : latest.status === "publishing"
            ? "Still publishing: follow it on the post's page."
            : latest.status === "partially_published"
              ? "Published on some networks; see which failed and why."
              : "Publishing failed; see why on the post's page.",
    });
  }

  const busy = phase.kind === "saving" || phase.kind === "publishing";
  const selectable = data.accounts.filter(
    (a) => (a.status === "connected" && a.is_active) || rows.some((r) => r.accountId === a.id),
  );
  const activeRowIndex = rows.findIndex((r) => r.accountId === active && r.enabled);
  const activeRow = activeRowIndex >= 0 ? rows[activeRowIndex] : undefined;
  const tabs = [
    { id: "all", name: "All networks" },
    ...enabledRows.map((r) => ({ id: r.accountId, name: names.get(r.accountId) ?? "" })),
  ];
  const tabErrors = useMemo(() => {
    const set = new Set<string>();
    for (const path of Object.keys(errors.fields)) {
      const i = rowOfPath(path);
      if (i !== null && rows[i]) set.add(rows[i].accountId);
    }
    return set;
  }, [errors, rows]);

  function onTabKey(e: KeyboardEvent, index: number) {
    const next =
      e.key === "ArrowRight"
        ? index + 1
        : e.key === "ArrowLeft"
          ? index - 1
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? tabs.length - 1
              : null;
    if (next === null) return;
    e.preventDefault();
    const tab = tabs[(next + tabs.length) % tabs.length];
    if (!tab) return;
    setActive(tab.id);
    document.getElementById(`tab-${tab.id}`)?.focus();
  }

  const e = errors.fields;
  return (
    <section class="composer">
      <h1>{post ? "Edit post" : "Compose"}</h1>
      {data.duplicated && (
        <p class="notice" role="status">
          Duplicated: this is a new draft with the same text, networks, media and labels. Pick a time, or add it to a
          queue.
        </p>
      )}
      {post && (
        <p class="muted">
          <span class={`status status-${post.status}`}>{post.status.replace("_", " ")}</span>{" "}
          <Link to={`/posts/${post.id}`}>Open the post's page</Link>
        </p>
      )}
      {!editable && (
        <p class="notice">A {post?.status} post cannot be changed. Its page shows each network's result.</p>
      )}
      <div id="compose-errors" tabIndex={-1}>
        <FormErrors messages={errors.general} />
      </div>
      <form
        onSubmit={(ev) => {
          ev.preventDefault();
          void save(scheduled ? "save" : "draft");
        }}
      >
        <fieldset class="accounts-picker">
          <legend>Publish to</legend>
          {e.platforms && (
            <p id={fieldId("platforms")} class="field-error" tabIndex={-1}>
              {e.platforms}
            </p>
          )}
          {selectable.length === 0 ? (
            <p>
              No connected accounts yet. <Link to="/accounts">Connect an account</Link>, then come back to write for it.
            </p>
          ) : (
            <ul class="account-choices">
              {selectable.map((a) => {
                const row = rows.find((r) => r.accountId === a.id);
                const usable = a.status === "connected" && a.is_active;
                return (
                  <li key={a.id}>
                    <label class="choice">
                      <input
                        type="checkbox"
                        checked={row?.enabled ?? false}
                        disabled={!usable && !row?.enabled}
                        onChange={(ev) => toggleAccount(a, (ev.currentTarget as HTMLInputElement).checked)}
                      />
                      <span>
                        {a.display_name} <span class="muted small">{networkName(a.platform)}</span>
                        {!usable && <span class="small warn-text"> (not connected)</span>}
                      </span>
                    </label>
                  </li>
                );
              })}
            </ul>
          )}
        </fieldset>

        <div class="tabs" role="tablist" aria-label="Networks">
          {tabs.map((t, i) => (
            <button
              key={t.id}
              id={`tab-${t.id}`}
              type="button"
              role="tab"
              class="tab"
              aria-selected={active === t.id || (t.id === "all" && !activeRow)}
              aria-controls={active === t.id || (t.id === "all" && !activeRow) ? `panel-${t.id}` : undefined}
              tabIndex={active === t.id || (t.id === "all" && !activeRow) ? 0 : -1}
              onClick={() => setActive(t.id)}
              onKeyDown={(ev) => onTabKey(ev, i)}
            >
              {t.name}
              {tabErrors.has(t.id) && (
                <>
                  <span class="tab-dot" aria-hidden="true" />
                  <span class="visually-hidden"> (has problems)</span>
                </>
              )}
            </button>
          ))}
        </div>

        {activeRow ? (
          <div
            id={`panel-${activeRow.accountId}`}
            role="tabpanel"
            aria-labelledby={`tab-${activeRow.accountId}`}
            class="tabpanel"
          >
            <div class="row-layout">
              <RowEditor
                row={activeRow}
                index={activeRowIndex}
                tabName={names.get(activeRow.accountId) ?? ""}
                accountName={accountName(activeRow.accountId)}
                spec={specOf(activeRow.platform)}
                postContent={content}
                media={media}
                errors={e}
                onChange={(next) => setRows(rows.map((r) => (r.accountId === next.accountId ? next : r)))}
              />
              <Preview
                row={activeRow}
                accountName={accountName(activeRow.accountId)}
                username={accountOf(activeRow.accountId)?.username ?? ""}
                networkLabel={names.get(activeRow.accountId) ?? ""}
                postContent={content}
                media={media}
              />
            </div>
          </div>
        ) : (
          <div id="panel-all" role="tabpanel" aria-labelledby="tab-all" class="tabpanel">
            <Field path="content" label="Text for all networks" error={e.content} class="field-wide">
              {(a) => (
                <textarea
                  {...a}
                  aria-describedby={[a["aria-describedby"], "all-counts"].filter(Boolean).join(" ")}
                  rows={8}
                  value={content}
                  onInput={(ev) => setContent((ev.currentTarget as HTMLTextAreaElement).value)}
                />
              )}
            </Field>
            <ul id="all-counts" class="counts" aria-label="Length on each network">
              {enabledRows.map((r) => {
                const c = measure(r, content, media).counters.find((x) => x.field === "content");
                return (
                  <li key={r.accountId}>
                    <span>
                      {names.get(r.accountId)}
                      {r.ownText ? " (own text)" : ""}:{" "}
                    </span>
                    <CounterText counter={c} id={`count-${r.accountId}`} inline />
                  </li>
                );
              })}
            </ul>
            {data.signatures.length > 0 && (
              <div class="inline-row">
                <Field path="signature_id" label="Signature" error={e.signature_id}>
                  {(a) => (
                    <select
                      {...a}
                      value={signature}
                      onChange={(ev) => setSignature((ev.currentTarget as HTMLSelectElement).value)}
                    >
                      <option value="">Choose a signature…</option>
                      {data.signatures.map((s) => (
                        <option key={s.id} value={s.id}>
                          {s.name}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
                <button
                  type="button"
                  class="button"
                  disabled={!signature}
                  onClick={() => {
                    const s = data.signatures.find((x) => x.id === signature);
                    // As the API appends one (signature_id): after a blank line.
                    if (s)
                      setContent(content.trim() === "" ? s.content : `${content.replace(/\s+$/, "")}\n\n${s.content}`);
                  }}
                >
                  Add signature
                </button>
              </div>
            )}
            <MediaSection
              items={media}
              disabled={busy}
              errors={e}
              onFiles={(files) => void addFiles(files)}
              onAlt={(key, alt) => setMedia(media.map((m) => (m.key === key ? { ...m, alt } : m)))}
              onRemove={(key) => setMedia(media.filter((m) => m.key !== key))}
              onMove={(key, by) => {
                const list = [...media];
                const i = list.findIndex((m) => m.key === key);
                const j = i + by;
                if (i < 0 || j < 0 || j >= list.length) return;
                [list[i], list[j]] = [list[j] as MediaItem, list[i] as MediaItem];
                setMedia(list);
              }}
            />
            {enabledRows.length > 0 && (
              <p class="small muted">Each network's tab shows its fit notes, preview and problems.</p>
            )}
          </div>
        )}

        {data.labels.length > 0 && (
          <fieldset>
            <legend>Labels</legend>
            {e.label_ids && (
              <p id={fieldId("label_ids")} class="field-error" tabIndex={-1}>
                {e.label_ids}
              </p>
            )}
            <ul class="account-choices">
              {data.labels.map((l) => (
                <li key={l.id}>
                  <label class="choice">
                    <input
                      type="checkbox"
                      checked={labelIds.includes(l.id)}
                      onChange={(ev) =>
                        setLabelIds(
                          (ev.currentTarget as HTMLInputElement).checked
                            ? [...labelIds, l.id]
                            : labelIds.filter((x) => x !== l.id),
                        )
                      }
                    />
                    <LabelChip label={l} />
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
        )}

        <fieldset class="when">
          <legend>When</legend>
          <div class="inline-row">
            <Field
              path="scheduled_at"
              label="Publish at"
              hint={`In ${zone}. Needed to schedule; a draft without one stays undated.`}
              error={e.scheduled_at}
            >
              {(a) => (
                <input
                  {...a}
                  type="datetime-local"
                  value={when}
                  onInput={(ev) => setWhen((ev.currentTarget as HTMLInputElement).value)}
                />
              )}
            </Field>
            <Field path="time_zone" label="Time zone">
              {(a) => (
                <select
                  {...a}
                  value={zone}
                  onChange={(ev) => {
                    const z = (ev.currentTarget as HTMLSelectElement).value;
                    // The same instant, shown in the new zone.
                    const utc = when ? inputToApiTime(when, zone) : null;
                    setZone(z);
                    setPreferredTimeZone(z);
                    if (utc) setWhen(apiTimeToInput(utc, z) ?? when);
                  }}
                >
                  <TimeZoneOptions current={zone} />
                </select>
              )}
            </Field>
          </div>
          {e.status && (
            <p id={fieldId("status")} class="field-error" tabIndex={-1}>
              {e.status}
            </p>
          )}
        </fieldset>

        <RepeatSection
          draft={repeat}
          onChange={setRepeat}
          errors={e as Record<string, string | undefined>}
          disabled={busy || !editable}
          zone={zone}
        />

        <div class="form-actions compose-actions">
          {scheduled ? (
            <>
              {/* A scheduled post is edited and stays scheduled; back to draft is its own button (issue 35). */}
              <button type="submit" class="button button-primary" disabled={busy || uploading || !editable}>
                {phase.kind === "saving" && phase.action === "save" ? "Saving…" : "Save changes"}
              </button>
              <button
                type="button"
                class="button"
                disabled={busy || uploading || !editable}
                onClick={() => void save("draft")}
              >
                {phase.kind === "saving" && phase.action === "draft" ? "Moving…" : "Move to drafts"}
              </button>
            </>
          ) : (
            <>
              <button type="submit" class="button" disabled={busy || uploading || !editable}>
                {phase.kind === "saving" && phase.action === "draft" ? "Saving…" : "Save draft"}
              </button>
              <button
                type="button"
                class="button button-primary"
                disabled={busy || uploading || !editable}
                onClick={() => void save("schedule")}
              >
                {phase.kind === "saving" && phase.action === "schedule" ? "Scheduling…" : "Schedule"}
              </button>
              <AddToQueue
                queues={data.queues}
                choice={queueChoice}
                disabled={busy || uploading || !editable}
                saving={phase.kind === "saving" && phase.action === "queue"}
                error={e.queue_id}
                onAdd={() => void save("queue")}
              />
            </>
          )}
          <button
            type="button"
            class="button"
            disabled={busy || uploading || !editable}
            onClick={() => void save("publish")}
          >
            {phase.kind === "saving" && phase.action === "publish" ? "Starting…" : "Publish now"}
          </button>
          {uploading && <span class="small muted">Wait for the uploads to finish.</span>}
        </div>
      </form>

      {/* Issue 40: a saved post can be duplicated or deleted from here too (what is typed and unsaved stays behind). */}
      {post && (
        <div class="toolbar compose-post-actions">
          <DuplicateButton postId={post.id} onError={(message) => fail(undefined, message)} />
          <DeletePostControl
            postId={post.id}
            onDeleted={() => navigate("/posts?deleted=1")}
            onError={(message) => fail(undefined, message)}
          />
        </div>
      )}

      <div ref={statusRef} tabIndex={-1} class="compose-status" role="status">
        {phase.kind === "publishing" && (
          <div class="publishing">
            <label for="publish-progress">
              Publishing: {phase.done} of {phase.total} networks done
            </label>
            <progress id="publish-progress" max={phase.total} value={phase.done} />
          </div>
        )}
        {phase.kind === "done" && (
          <div class="notice">
            <p>{phase.message}</p>
            {phase.problems && phase.problems.length > 0 && (
              <ul class="problems-list">
                {phase.problems.map((x) => (
                  <li key={x.label + x.problem}>
                    {x.label}: {x.problem}
                  </li>
                ))}
              </ul>
            )}
            {phase.post.status !== "draft" && phase.post.status !== "scheduled" && (
              <ul>
                {phase.post.platforms
                  .filter((r) => r.enabled)
                  .map((r) => (
                    <li key={r.id}>
                      {networkName(r.platform)} ({r.display_name}): {r.status}
                      {webLink(r.platform_url) && (
                        <>
                          {" "}
                          <a href={webLink(r.platform_url) ?? undefined} rel="noreferrer noopener" target="_blank">
                            see it on {networkName(r.platform)}
                          </a>
                        </>
                      )}
                      {r.error_message && <span class="warn-text"> — {r.error_message}</span>}
                    </li>
                  ))}
              </ul>
            )}
            <p>
              <Link to={`/posts/${phase.post.id}`}>Open the post's page</Link> · <Link to="/calendar">Calendar</Link> ·{" "}
              <Link to="/compose">Write another post</Link>
            </p>
          </div>
        )}
      </div>
    </section>
  );
}
