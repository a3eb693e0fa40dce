import { catalogueEntry } from "../../versioning/catalogue";
import { stateAt, type ChangeState } from "../../versioning/gate";

/**
 * The schema's view of the catalogue at one service version: which GraphQL names exist and which
 * carry @deprecated. Only the catalogue decides; nothing here compares version strings.
 */
export interface SchemaGate {
  version: string;
  state(id: string): ChangeState;
  /** The old name is still in the schema. */
  has(id: string): boolean;
  /** The replacement exists: the change has been announced (deprecated) or carried out. */
  introduced(id: string): boolean;
  /** ` @deprecated(reason: ...)` while the entry is deprecated, and records the coordinate. */
  dep(id: string, coordinate: string): string;
  /** Schema coordinates (Type.field, Type.field(arg:), Enum.VALUE) → catalogue id, for Deprecation headers. */
  readonly coordinates: Map<string, string>;
}

export function schemaGate(version: string): SchemaGate {
  const coordinates = new Map<string, string>();
  const state = (id: string) => stateAt(catalogueEntry(id), version);
  return {
    version,
    state,
    has: (id) => state(id) !== "removed",
    introduced: (id) => state(id) !== "announced",
    dep(id, coordinate) {
      if (state(id) !== "deprecated") return "";
      coordinates.set(coordinate, id);
      const e = catalogueEntry(id);
      const parts = [e.replacement ? `Use ${e.replacement}.` : e.change];
      if (e.deprecatedIn) parts.push(`Deprecated in GitLab ${e.deprecatedIn}.`);
      if (e.removedIn) parts.push(`Removed in GitLab ${e.removedIn}.`);
      return ` @deprecated(reason: ${JSON.stringify(parts.join(" "))})`;
    },
    coordinates,
  };
}
