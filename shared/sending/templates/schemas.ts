// Wire shapes of the templates routes, requests and answers (zod; the TypeScript types are
// inferred from them, so the code's answers and the OpenAPI document cannot drift). Syntax and the
// variables a template uses are checked by the engine in the use case, not here.
import * as z from 'zod';

export const MAX_NAME_LENGTH = 200;
/** RFC 5322's line limit: a subject longer than this is folded by every mailer anyway. */
export const MAX_SUBJECT_LENGTH = 998;
/** Characters of body_html or body_text; the stored version is also bounded after gzip (service). */
export const MAX_BODY_LENGTH = 1024 * 1024;
export const MAX_VARIABLES = 100;

const timestamp = z.string().meta({ description: 'RFC 3339 UTC timestamp with milliseconds' });

/** A top-level Mustache name: what `{{ name }}` and `{{ name.field }}` refer to. */
const variableName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'must be 1 to 64 letters, digits, _ or -, starting with a letter or _');

export const templateVariable = z
  .object({
    name: variableName,
    required: z.boolean().optional().meta({ description: 'Default false. A send or render without it is 400 missing_variable' }),
    default_value: z.string().max(10_000).optional().meta({ description: 'Used when a send or render gives no value; not allowed on a required variable' }),
    sample: z.string().max(10_000).optional().meta({ description: 'An example value; fills the variable in POST /v1/templates/{id}/render (never in a send) when no value or default is given' }),
  })
  .strict()
  .refine((v) => !(v.required && v.default_value !== undefined), { message: 'a required variable cannot have a default_value', path: ['default_value'] });

export type TemplateVariableInput = z.infer<typeof templateVariable>;

const variables = z
  .array(templateVariable)
  .max(MAX_VARIABLES)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((v, i) => {
      if (seen.has(v.name)) ctx.addIssue({ code: 'custom', message: `variable "${v.name}" is listed twice`, path: [i, 'name'] });
      seen.add(v.name);
    });
  })
  .meta({ description: 'The variables the template uses. When given, every variable the subject and bodies use must be listed (400 invalid_template otherwise)' });

const name = z.string().trim().min(1, 'must not be empty').max(MAX_NAME_LENGTH);
const subject = z.string().min(1, 'must not be empty').max(MAX_SUBJECT_LENGTH);
const bodyHtml = z.string().min(1, 'must not be empty').max(MAX_BODY_LENGTH);
const bodyText = z
  .string()
  .max(MAX_BODY_LENGTH)
  .nullable()
  .meta({ description: 'The plain-text part; when absent or null, a send makes it from the rendered body_html (links kept)' });

export const createTemplateBody = z
  .object({
    name,
    channel: z.enum(['email']).meta({ description: 'Templates render email (the one content channel this deployment sends)' }),
    subject,
    body_html: bodyHtml,
    body_text: bodyText.optional(),
    variables: variables.optional(),
  })
  .strict();

export type CreateTemplateBody = z.infer<typeof createTemplateBody>;

/** Partial: only the fields sent change. A change to subject, body_html, body_text or variables makes a new version. */
export const updateTemplateBody = z
  .object({
    name: name.optional(),
    subject: subject.optional(),
    body_html: bodyHtml.optional(),
    body_text: bodyText.optional(),
    variables: variables.optional(),
    is_active: z.boolean().optional().meta({ description: 'false: sends with this template are refused (422 template_error); it still renders' }),
  })
  .strict();

export type UpdateTemplateBody = z.infer<typeof updateTemplateBody>;

export const renderTemplateBody = z
  .object({
    vars: z.record(z.string(), z.unknown()).optional().meta({ description: 'Values of the template variables; objects and arrays feed sections' }),
  })
  .strict();

export type RenderTemplateBody = z.infer<typeof renderTemplateBody>;

export const templateQuery = z
  .object({
    version: z
      .string()
      .regex(/^[1-9][0-9]{0,9}$/, 'must be a version number (1 or more)')
      .optional()
      .meta({ description: 'An earlier version to read; default the current one' }),
  })
  .strict();

export const templateVariableView = z
  .object({
    name: z.string(),
    required: z.boolean(),
    default_value: z.string().nullable(),
    sample: z.string().nullable(),
  })
  .strict();

export type TemplateVariable = z.infer<typeof templateVariableView>;

export const templateView = z
  .object({
    id: z.string().meta({ description: 'The template id, tmpl_…' }),
    name: z.string(),
    channel: z.enum(['email']),
    subject: z.string().nullable(),
    body_html: z.string().nullable(),
    body_text: z.string().nullable().meta({ description: 'As written; null when the template has none (a send makes it from the rendered body_html)' }),
    variables: z.array(templateVariableView),
    version: z.number().int().meta({ description: 'Starts at 1; a change to subject, bodies or variables makes a new version' }),
    is_active: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp.meta({ description: 'When the template (or, for an earlier version, that version) was last written' }),
  })
  .strict();

export type TemplateView = z.infer<typeof templateView>;

export const templateSummaryView = templateView.pick({ id: true, name: true, channel: true, version: true, is_active: true, created_at: true }).strict();
export type TemplateSummaryView = z.infer<typeof templateSummaryView>;

export const templateUpdatedView = z.object({ id: z.string(), name: z.string(), version: z.number().int() }).strict();
export type TemplateUpdatedView = z.infer<typeof templateUpdatedView>;

export const templateDeletedView = z.object({ message: z.string() }).strict();

export const renderedView = z
  .object({
    subject: z.string(),
    body_html: z.string().meta({ description: 'As a send mails it: rendered, with the CSS of its <style> blocks inlined onto the elements (media queries stay in a <style> block)' }),
    body_text: z.string().meta({ description: 'The template’s text part rendered, or, when it has none, the text a send makes from the rendered body_html (links kept)' }),
  })
  .strict();

export type RenderedView = z.infer<typeof renderedView>;

/** POST /v1/templates/preview: a template that is not stored, with the values to render it with. */
export const previewTemplateBody = z
  .object({
    subject,
    body_html: bodyHtml,
    body_text: bodyText.optional(),
    variables: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'Values of the variables the template uses (as `template_vars` on a send); a variable left without one is a warning' }),
  })
  .strict();
export type PreviewTemplateBody = z.infer<typeof previewTemplateBody>;

export const previewProblem = z
  .object({
    code: z.string().meta({
      description:
        'errors: `syntax_error`, `unknown_partial`, `partial_not_allowed`, `too_many_snippets`, `render_failed`; warnings: `missing_variable`, `missing_text_part`, `image_missing_alt`, `script_tag`, `body_too_large`',
    }),
    field: z.string().meta({ description: 'The part it is in: subject, body_html, body_text, or snippets.<name> for an included snippet' }),
    line: z.number().int().nullable().meta({ description: '1-based line in that part; null for a problem of the whole message (its size, its text part)' }),
    message: z.string(),
  })
  .strict();
export type PreviewProblem = z.infer<typeof previewProblem>;

export const previewView = z
  .object({
    subject: z.string().nullable().meta({ description: 'The rendered subject; null when it could not be rendered (see errors)' }),
    html: z.string().nullable().meta({ description: 'The HTML as a send mails it: rendered, CSS inlined; null when body_html could not be rendered' }),
    text: z
      .string()
      .nullable()
      .meta({ description: 'The text part as a send mails it: body_text rendered, or made from the rendered HTML when there is none; null when it could not be rendered' }),
    warnings: z.array(previewProblem).meta({ description: 'What renders but may surprise: variables without a value, what mail clients handle badly' }),
    errors: z.array(previewProblem).meta({ description: 'What a template write would refuse (400 invalid_template) or a send could not render (422 template_error)' }),
  })
  .strict();
export type PreviewView = z.infer<typeof previewView>;

/** A built-in gallery template, as GET /v1/templates/gallery lists it (the spec's fields). */
export const galleryTemplateView = z
  .object({
    id: z.string(),
    name: z.string(),
    category: z.string(),
    description: z.string(),
    subject: z.string().meta({ description: 'Mustache, like a stored template' }),
    body_html: z.string().meta({ description: 'Mustache; responsive, every image with alt text' }),
    sample_variables: z.record(z.string(), z.unknown()).meta({ description: 'Values that render it fully: a starting point for template_vars' }),
  })
  .strict();
export type GalleryTemplateView = z.infer<typeof galleryTemplateView>;

/** Characters of a snippet's body_html or body_text: both stay well inside one DynamoDB item. */
export const MAX_SNIPPET_BODY_LENGTH = 50_000;

/** What `{{> name }}` calls: unique per account regardless of case. */
const snippetName = z
  .string()
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/, 'must be 1 to 64 letters, digits, _, . or -, starting with a letter, digit or _')
  .meta({ description: 'What templates write as `{{> name }}`; unique per account regardless of case' });
const snippetHtml = z.string().min(1, 'must not be empty').max(MAX_SNIPPET_BODY_LENGTH).meta({ description: 'Mustache, included by `{{> name }}` in a template’s body_html; may not include another snippet' });
const snippetText = z
  .string()
  .max(MAX_SNIPPET_BODY_LENGTH)
  .nullable()
  .meta({ description: 'Included by `{{> name }}` in a template’s body_text; when null, body_text includes body_html as written' });

export const createSnippetBody = z.object({ name: snippetName, body_html: snippetHtml, body_text: snippetText.optional() }).strict();
export type CreateSnippetBody = z.infer<typeof createSnippetBody>;

/** Partial: only the fields sent change. A rename is refused (409 conflict) while a template includes the snippet. */
export const updateSnippetBody = z.object({ name: snippetName.optional(), body_html: snippetHtml.optional(), body_text: snippetText.optional() }).strict();
export type UpdateSnippetBody = z.infer<typeof updateSnippetBody>;

export const snippetView = z
  .object({
    id: z.string().meta({ description: 'The snippet id, snip_…' }),
    account_id: z.string(),
    name: z.string(),
    body_html: z.string(),
    body_text: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict();
export type SnippetView = z.infer<typeof snippetView>;
