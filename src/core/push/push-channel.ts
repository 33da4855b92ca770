/**
 * The push's channels and how a request to one fails (docs/decisions/0013-channel-push.md): the vocabulary
 * the outbox, the channel clients and the status share.
 */

export type PushChannel = 'google' | 'shoptet' | 'meta';

export const PUSH_CHANNELS: readonly PushChannel[] = ['google', 'shoptet', 'meta'];

/**
 * Why a request failed, as the status page and the warnings tell it (decision 0013, section 6): a refused
 * credential, a rate limit, a spent (daily) quota, the channel's own fault, the network, or a request the
 * channel refuses as invalid.
 */
export type PushErrorCause = 'auth' | 'rate-limit' | 'quota' | 'server' | 'network' | 'invalid';
