// The built-in gallery: 20 starting points a team copies into its own templates. Data only; the
// GET /v1/templates/gallery route serves it and the checks in ../checks.ts (the preview's) test it.
import { accountAlert, goodbye, loginAlert, magicLink, passwordReset, verifyEmail } from './account';
import { invoice, paymentFailed, receipt, trialEnding } from './billing';
import { backInStock, orderConfirmation, shippingUpdate } from './commerce';
import { feedbackRequest, weeklyDigest } from './engagement';
import { eventInvite, newsletter, productAnnouncement } from './marketing';
import { teamInvite, welcome } from './onboarding';
import type { GalleryTemplate } from './types';

export type { GalleryCategory, GalleryTemplate, GalleryVariable } from './types';

export const galleryTemplates: readonly GalleryTemplate[] = Object.freeze([
  welcome,
  verifyEmail,
  passwordReset,
  magicLink,
  receipt,
  invoice,
  shippingUpdate,
  trialEnding,
  paymentFailed,
  teamInvite,
  weeklyDigest,
  newsletter,
  productAnnouncement,
  eventInvite,
  feedbackRequest,
  accountAlert,
  loginAlert,
  orderConfirmation,
  backInStock,
  goodbye,
]);

/** The spec's Gallery template fields, as the route answers them. */
export function galleryEntry(t: GalleryTemplate): Pick<GalleryTemplate, 'id' | 'name' | 'category' | 'description' | 'subject' | 'body_html' | 'sample_variables'> {
  return { id: t.id, name: t.name, category: t.category, description: t.description, subject: t.subject, body_html: t.body_html, sample_variables: t.sample_variables };
}
