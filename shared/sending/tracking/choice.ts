// Whether a message is tracked, decided once when it is accepted and stored on the message item
// (`tracking`), so the send worker and the tracking routes need no other read. A send's
// `tracking: {opens, clicks}` wins; otherwise a transactional send is not tracked, and marketing
// mail and every message a broadcast or bulk send fans out follow the sending domain's
// open_tracking and click_tracking (off until set).
// Test-mode messages are never tracked: nothing is mailed, so no link or pixel could be followed.

/** What is tracked; absent on a message that is not tracked at all. */
export type TrackingChoice = 'opens' | 'clicks' | 'both';
export const trackingChoices = ['opens', 'clicks', 'both'] as const satisfies readonly TrackingChoice[];

export interface TrackingRequest {
  opens?: boolean;
  clicks?: boolean;
}

export interface DomainTracking {
  open_tracking?: boolean;
  click_tracking?: boolean;
}

export function choiceOf(opens: boolean, clicks: boolean): TrackingChoice | undefined {
  if (opens && clicks) return 'both';
  if (opens) return 'opens';
  return clicks ? 'clicks' : undefined;
}

export function decideTracking(input: {
  messageType: 'transactional' | 'marketing';
  /** Fanned out by a broadcast or bulk send. */
  bulk?: boolean;
  testMode: boolean;
  requested?: TrackingRequest;
  domain?: DomainTracking;
}): TrackingChoice | undefined {
  if (input.testMode) return undefined;
  const marketing = input.messageType === 'marketing' || input.bulk === true;
  const opens = input.requested?.opens ?? (marketing && input.domain?.open_tracking === true);
  const clicks = input.requested?.clicks ?? (marketing && input.domain?.click_tracking === true);
  return choiceOf(opens, clicks);
}

export const tracksOpens = (choice: TrackingChoice | undefined): boolean => choice === 'opens' || choice === 'both';
export const tracksClicks = (choice: TrackingChoice | undefined): boolean => choice === 'clicks' || choice === 'both';
