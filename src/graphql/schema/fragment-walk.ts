import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from "graphql";

/**
 * A fold over a document's selections in which each named fragment is evaluated once and its
 * result reused at every spread (issue 8 item 5: walking fragments afresh at each spread costs 2^n
 * for n fragments that each spread the previous one twice). Cycles are graphql-js's
 * NoFragmentCyclesRule's to report; here a fragment met again while in progress counts as zero.
 */
export interface SelectionMeasure {
  /** The value of a field; `inner` measures its selection set (0 for a leaf). */
  field(name: string, inner: () => number): number;
  /** How the values of sibling selections combine (max for depth, sum for complexity). */
  combine(a: number, b: number): number;
}

export function measureSelections(doc: DocumentNode, measure: SelectionMeasure): (set: SelectionSetNode | undefined) => number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of doc.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const memo = new Map<string, number>();
  const inProgress = new Set<string>();

  const ofFragment = (name: string): number => {
    const known = memo.get(name);
    if (known !== undefined) return known;
    const def = fragments.get(name);
    if (!def || inProgress.has(name)) return 0;
    inProgress.add(name);
    const value = ofSet(def.selectionSet);
    inProgress.delete(name);
    memo.set(name, value);
    return value;
  };

  const ofSet = (set: SelectionSetNode | undefined): number => {
    if (!set) return 0;
    let total = 0;
    for (const s of set.selections) {
      const value =
        s.kind === Kind.FIELD
          ? measure.field(s.name.value, () => ofSet(s.selectionSet))
          : s.kind === Kind.INLINE_FRAGMENT
            ? ofSet(s.selectionSet)
            : ofFragment(s.name.value);
      total = measure.combine(total, value);
    }
    return total;
  };
  return ofSet;
}
