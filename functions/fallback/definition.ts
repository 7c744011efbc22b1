// The fallback function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';

export const fallback = defineFunction({
  name: 'fallback',
  entry: 'functions/fallback/http.ts',
  handler: 'handler',
  defaultRoute: true,
  needs: {},
  memoryMb: 256,
  timeoutSeconds: 5,
});
