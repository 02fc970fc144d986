/**
 * Name and label syntax checks of staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go,
 * returning the upstream error text so 422 and 400 answers read like the real server's.
 */

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelValueFmt = `(${qualifiedNameFmt})?`;

const dns1123Label = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123Subdomain = new RegExp(`^${dns1123SubdomainFmt}$`);
const qualifiedName = new RegExp(`^${qualifiedNameFmt}$`);
const labelValue = new RegExp(`^${labelValueFmt}$`);

const subdomainMessage = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${dns1123SubdomainFmt}')`;
const labelMessage = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${dns1123LabelFmt}')`;
const qualifiedNameMessage = `must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${qualifiedNameFmt}')`;

/** Why `value` is not a DNS-1123 subdomain (IsDNS1123Subdomain), or undefined when it is one. */
export function dns1123SubdomainError(value: string): string | undefined {
  if (value.length > 253) return 'must be no more than 253 characters';
  return dns1123Subdomain.test(value) ? undefined : subdomainMessage;
}

/** Why `value` is not a DNS-1123 label (IsDNS1123Label), or undefined when it is one. */
export function dns1123LabelError(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  return dns1123Label.test(value) ? undefined : labelMessage;
}

/** Why `value` is not a path segment name (path.ValidatePathSegmentName), or undefined. */
export function pathSegmentNameError(value: string): string | undefined {
  if (value === '.' || value === '..') return `may not be '${value}'`;
  if (value.includes('/')) return "may not contain '/'";
  if (value.includes('%')) return "may not contain '%'";
  return undefined;
}

/** Why `value` is not a qualified name like a label key (IsQualifiedName), or undefined. */
export function qualifiedNameError(value: string): string | undefined {
  const parts = value.split('/');
  if (parts.length > 2) {
    return `a qualified name ${qualifiedNameMessage} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
  }
  const name = parts.length === 2 ? (parts[1] ?? '') : value;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix.length === 0) return 'prefix part must be non-empty';
    const prefixError = dns1123SubdomainError(prefix);
    if (prefixError) return `prefix part ${prefixError}`;
  }
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  return qualifiedName.test(name) ? undefined : `name part ${qualifiedNameMessage}`;
}

/** Why `value` is not a valid label value (IsValidLabelValue), or undefined. */
export function labelValueError(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  return labelValue.test(value)
    ? undefined
    : `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${labelValueFmt}')`;
}
