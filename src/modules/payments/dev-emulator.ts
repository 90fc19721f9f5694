import type { Config } from '../../config.js';

/** The secret the in-process emulator is started with; it guards nothing real. */
export const EMULATOR_SECRET_KEY = 'sk_test_payment_emulator';

export interface DevelopmentPayments {
  /** `config`, pointed at the emulator when one was started. */
  config: Config;
  /** The started emulator, to log and to close with the app. */
  emulator?: { url: string; close(): Promise<void> };
}

/**
 * In development without PAYMENT_API_BASE, starts the bundled payment emulator
 * (tools/emulators/payment) on a free loopback port and points the config at
 * it. Production never gets here without a real provider (config refuses), and
 * tests start their own emulator.
 */
export async function startDevelopmentPayments(config: Config): Promise<DevelopmentPayments> {
  if (config.env !== 'development' || config.payment.apiBase) return { config };
  const { startPaymentEmulator } = await import('../../../tools/emulators/payment/server.js');
  const emulator = await startPaymentEmulator({ secretKey: EMULATOR_SECRET_KEY });
  return {
    config: {
      ...config,
      payment: { ...config.payment, apiBase: emulator.url, secretKey: EMULATOR_SECRET_KEY },
    },
    emulator,
  };
}
