/** A variable a template declares: its name, whether a send must supply it, and its default. */
export interface GalleryVariable {
  readonly name: string;
  readonly required: boolean;
  readonly default_value?: string;
}

/**
 * A built-in starting point (the spec's Gallery template, plus the variables it declares so a
 * copy into an account's templates keeps them). Subject and body_html are Mustache.
 */
export interface GalleryTemplate {
  readonly id: string;
  readonly name: string;
  readonly category: GalleryCategory;
  readonly description: string;
  readonly subject: string;
  readonly body_html: string;
  readonly sample_variables: Readonly<Record<string, unknown>>;
  readonly variables: readonly GalleryVariable[];
}

export type GalleryCategory = 'onboarding' | 'account' | 'billing' | 'commerce' | 'marketing' | 'engagement';
