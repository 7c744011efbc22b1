// Usage: the month's numbers per channel (GET /v1/usage), and a chart of messages per day and
// channel over the last 30 days, counted from the message list (the API keeps usage per month, not
// per day), drawn here as inline SVG.
import { view, type Section } from '../section';

const markup = view('usage', 'Usage', `<div id="usage-month"></div><h3>Messages per day, last 30 days</h3><div id="usage-chart"></div><div id="usage-legend"></div>`);

export const usageSection: Section = { markup, nav: [{ view: 'usage', label: 'Usage' }] };
