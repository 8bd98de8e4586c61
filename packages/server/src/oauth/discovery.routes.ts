import type { FastifyInstance } from 'fastify';
import { SCOPE_NAMES } from '@maqam/contract';

/** Authorization server metadata (RFC 8414): where the endpoints are, and what they support. */
export async function discoveryRoutes(app: FastifyInstance, deps: { issuer: string }): Promise<void> {
  const { issuer } = deps;
  const hidden = { hide: true };
  app.get('/.well-known/oauth-authorization-server', { schema: { ...hidden } }, async () => ({
    issuer,
    authorization_endpoint: `${issuer}/v1/auth/authorize`,
    token_endpoint: `${issuer}/v1/auth/token`,
    revocation_endpoint: `${issuer}/v1/auth/token/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPE_NAMES],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  }));
}
