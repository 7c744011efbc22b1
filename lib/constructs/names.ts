// CDK ids are PascalCase; manifest names are kebab-case.

/** `ses-events` → `SesEvents`. */
export function pascalCase(name: string): string {
  return name
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
