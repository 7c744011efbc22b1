import * as z from 'zod';
import { oauthProviders } from '../../platform';

export const oauthProviderParams = z.object({ provider: z.enum(oauthProviders).meta({ description: 'github or google; another is 404 `not_found`' }) });

/** What a provider's redirect back carries; providers add more (scope, authuser, error_description), which are ignored. */
export const oauthCallbackQuery = z.object({
  code: z.string().min(1).max(2048).optional().meta({ description: "The provider's authorization code" }),
  state: z.string().max(256).optional().meta({ description: 'The state the start issued; must equal the `postbox_oauth_state` cookie' }),
  error: z.string().max(256).optional().meta({ description: "The provider's refusal, e.g. `access_denied`" }),
});
export type OAuthCallbackQuery = z.infer<typeof oauthCallbackQuery>;
