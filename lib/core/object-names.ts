/**
 * Name syntax checks ported from upstream apimachinery pkg/util/validation (IsDNS1123Subdomain,
 * IsDNS1123Label, IsQualifiedName, IsValidLabelValue). Each returns the list of problems, empty
 * when the value is valid, with upstream's messages.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Problems with `value` as a DNS-1123 label (at most 63 lowercase alphanumerics and '-'). */
export function dns1123LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (!DNS1123_LABEL.test(value)) {
    errors.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
    );
  }
  return errors;
}

/** Problems with `value` as a DNS-1123 subdomain (at most 253 characters, dot-separated labels). */
export function dns1123SubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errors.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
    );
  }
  return errors;
}

/** Problems with `value` as a qualified name (label key): optional DNS subdomain prefix and '/'. */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) return ["a qualified name must have at most one '/'"];
  const name = parts.length === 2 ? (parts[1] ?? '') : value;
  const errors: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix === '') errors.push('prefix part must be non-empty');
    else errors.push(...dns1123SubdomainErrors(prefix).map((e) => `prefix part ${e}`));
  }
  if (name === '') errors.push('name part must be non-empty');
  else if (name.length > 63) errors.push('name part must be no more than 63 characters');
  if (name !== '' && !QUALIFIED_NAME.test(name)) {
    errors.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    );
  }
  return errors;
}

/** Problems with `value` as a label value (empty, or at most 63 characters of the name syntax). */
export function labelValueErrors(value: string): string[] {
  if (value === '') return [];
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (!QUALIFIED_NAME.test(value)) {
    errors.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    );
  }
  return errors;
}
