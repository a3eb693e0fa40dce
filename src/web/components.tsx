import { SCOPES, type Scope } from "../domain/scopes";
import { CsrfField } from "./page";

/** Small pieces shared by the pages (src/web/pages). */

/** One labelled checkbox per scope, each with its description; `idPrefix` keeps ids unique per form. */
export function ScopeCheckboxes({ scopes, checked, idPrefix }: { scopes: readonly Scope[]; checked: readonly string[]; idPrefix: string }) {
  return (
    <>
      {scopes.map((scope) => (
        <div class="checkbox">
          <input type="checkbox" id={`${idPrefix}${scope}`} name="scopes" value={scope} checked={checked.includes(scope)} aria-describedby={`${idPrefix}${scope}_hint`} />
          <label for={`${idPrefix}${scope}`}>{scope}</label>
          <p class="hint" id={`${idPrefix}${scope}_hint`}>
            {SCOPES[scope]}
          </p>
        </div>
      ))}
    </>
  );
}

/** A value in code with a Copy button (the button is shown by the page script). */
export function CopyableCode({ id, value, copyLabel }: { id: string; value: string; copyLabel: string }) {
  return (
    <span class="secret-row">
      <code id={id}>{value}</code>
      <button type="button" class="secondary" data-copy={id} hidden>
        {copyLabel}
      </button>
    </span>
  );
}

/** A secret shown this once (a new token or client secret), with the warning that says so. */
export function ShownOnce(props: { id: string; value: string; copyLabel: string; warning: string }) {
  return (
    <>
      <CopyableCode id={props.id} value={props.value} copyLabel={props.copyLabel} />
      <p class="flash warning" role="status">
        {props.warning}
      </p>
    </>
  );
}

/** Scopes as badges. */
export function ScopeBadges({ scopes }: { scopes: readonly string[] }) {
  return (
    <>
      {scopes.map((s) => (
        <span class="badge">{s}</span>
      ))}
    </>
  );
}

/** A table's head: one column header per name, then an "Action" column when the rows carry a button. */
export function TableHead({ columns, action = false }: { columns: readonly string[]; action?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((name) => (
          <th scope="col">{name}</th>
        ))}
        {action ? (
          <th scope="col">
            <span class="muted">Action</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}

/** The Revoke (or Delete) button of a list row: a confirmed POST with the CSRF token. */
export function RevokeForm(props: { action: string; confirm: string; label: string; token: string; button?: string }) {
  return (
    <form method="post" action={props.action} data-confirm={props.confirm}>
      <CsrfField token={props.token} />
      <button type="submit" class="danger" aria-label={props.label}>
        {props.button ?? "Revoke"}
      </button>
    </form>
  );
}
