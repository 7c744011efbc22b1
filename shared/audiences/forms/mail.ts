// The confirmation mail of a double opt-in sign-up, mailed from the deployment's shared sender.
import { escapeHtml } from './html';

/** A subject may not carry line breaks; a form title is free text. */
const oneLine = (value: string): string => value.replace(/[\r\n\t]+/g, ' ').trim();

export function confirmationMail(input: { title: string; link: string; language: string }): { subject: string; text: string; html: string } {
  const title = oneLine(input.title);
  const text = [
    `Someone, hopefully you, signed this address up for "${title}".`,
    '',
    'To confirm the subscription, open this link within 7 days and press the button:',
    input.link,
    '',
    'If you did not sign up, ignore this message: without confirmation you will not be subscribed.',
    '',
  ].join('\n');
  const html = [
    `<!doctype html><html lang="${escapeHtml(input.language)}"><body style="font-family:sans-serif;line-height:1.5">`,
    `<p>Someone, hopefully you, signed this address up for <strong>${escapeHtml(title)}</strong>.</p>`,
    `<p><a href="${escapeHtml(input.link)}">Confirm your subscription</a> (the link works once, for 7 days).</p>`,
    '<p>If you did not sign up, ignore this message: without confirmation you will not be subscribed.</p>',
    '</body></html>',
  ].join('\n');
  return { subject: `Confirm your subscription: ${title}`, text, html };
}
