/**
 * A change-notification receiver on 127.0.0.1 for the webhook tests: it verifies every
 * delivery with the `standardwebhooks` package, unedited (the independent check that the
 * signatures follow the Standard Webhooks specification), records each, and answers with
 * the statuses it is told to, one per delivery, then 200.
 */
import type { Server } from "bun";
import { Webhook } from "standardwebhooks";

export interface Delivery {
  /** When it arrived (Date.now()). */
  at: number;
  id: string;
  timestamp: number;
  /** The verified payload; deliveries that fail verification are not recorded but counted in `unverified`. */
  payload: { type: string; timestamp: string; data: { organisation_id: string; resources?: string[]; changed_since?: string; endpoint_id?: string } };
  status: number;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  unverified: string[];
  /** The statuses the next deliveries are answered with, in order; then 200. */
  answerNext: (...statuses: number[]) => void;
  /** Sets the secret to verify with (known once `webhooks add` printed it). */
  verifyWith: (secret: string) => void;
  stop: () => Promise<void>;
}

export function startReceiver(port = 0): Receiver {
  const deliveries: Delivery[] = [];
  const unverified: string[] = [];
  const answers: number[] = [];
  let webhook: Webhook | undefined;
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port,
    async fetch(request) {
      const body = await request.text();
      const headers = Object.fromEntries(request.headers);
      try {
        if (!webhook) throw new Error("no secret yet");
        const payload = webhook.verify(body, headers) as Delivery["payload"];
        const status = answers.shift() ?? 200;
        deliveries.push({ at: Date.now(), id: headers["webhook-id"]!, timestamp: Number(headers["webhook-timestamp"]), payload, status });
        return new Response(status === 200 ? "ok" : "not now", { status });
      } catch (error) {
        unverified.push(String(error));
        return new Response("bad signature", { status: 400 });
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hooks`,
    deliveries,
    unverified,
    answerNext: (...statuses) => answers.push(...statuses),
    verifyWith: (secret) => {
      webhook = new Webhook(secret);
    },
    stop: () => server.stop(true),
  };
}
