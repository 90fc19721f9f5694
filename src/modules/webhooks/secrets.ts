import { randomBytes } from 'node:crypto';

/** A fresh signing secret: `whsec_` and 32 random bytes, base64 (the Standard Webhooks form). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
/** Binds a sealed secret to its endpoint: copied onto another row it does not decrypt. */
export const sealContext = (endpointId: number) => `webhook:${endpointId}`;
