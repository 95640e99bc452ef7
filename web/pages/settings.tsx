import type { FunctionComponent } from "preact";
import { Link } from "../router";
import type { PageProps } from "../routes";
import { canAdminister, canEdit } from "../session";
import { useSession } from "../session-context";
import ApiKeysSection from "./settings/api-keys";
import LabelsSection from "./settings/labels";
import MembersSection from "./settings/members";
import SignaturesSection from "./settings/signatures";
import WebhooksSection from "./settings/webhooks";

export interface SectionProps {
  /** The person may change things here (else the section is read-only). */
  canWrite: boolean;
}

interface Section {
  id: string;
  label: string;
  component: FunctionComponent<SectionProps>;
  /** Who sees the section at all (the API refuses the others anyway). */
  visible: (role: Parameters<typeof canEdit>[0]) => boolean;
  writable: (role: Parameters<typeof canEdit>[0]) => boolean;
}

const SECTIONS: Section[] = [
  { id: "labels", label: "Labels", component: LabelsSection, visible: () => true, writable: canEdit },
  { id: "signatures", label: "Signatures", component: SignaturesSection, visible: () => true, writable: canEdit },
  { id: "api-keys", label: "API keys", component: ApiKeysSection, visible: canAdminister, writable: canAdminister },
  { id: "webhooks", label: "Webhooks", component: WebhooksSection, visible: canAdminister, writable: canAdminister },
  { id: "members", label: "Members", component: MembersSection, visible: canAdminister, writable: canAdminister },
];

/** Settings: one section at a time (`/settings?section=api-keys`), each a link so back and forward work. */
export default function SettingsPage({ location }: PageProps) {
  const { membership } = useSession();
  const role = membership.role;
  const sections = SECTIONS.filter((s) => s.visible(role));
  const wanted = location.query.get("section");
  const current = sections.find((s) => s.id === wanted) ?? sections[0]!;
  const Section = current.component;
  return (
    <section class="settings">
      <h1>Settings</h1>
      <nav class="subnav" aria-label="Settings sections">
        <ul>
          {sections.map((s) => (
            <li key={s.id}>
              <Link to={`/settings?section=${s.id}`} aria-current={s.id === current.id ? "page" : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {!current.writable(role) && <p class="notice">Your role ({role}) can read these settings but not change them.</p>}
      <Section key={current.id} canWrite={current.writable(role)} />
    </section>
  );
}
