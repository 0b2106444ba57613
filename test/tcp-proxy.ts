/**
 * A TCP proxy the test controls, to cut a process's link to its database and restore it
 * without touching the database server or the process.
 */
import { createConnection, createServer, type Socket } from "node:net";

export interface TcpProxy {
  /** The port it listens on, on 127.0.0.1. */
  port: number;
  /** Destroys every live connection and refuses new ones (accepted, then dropped at once): a link that resets. */
  cut: () => void;
  /**
   * A link that goes silent, as in a network partition: bytes in either direction are
   * swallowed and new connections are accepted but never answered. Nothing is reset.
   */
  stall: () => void;
  /** Forwards new connections again; connections that lost bytes while stalled are dropped. */
  restore: () => void;
  close: () => Promise<void>;
}

/** Listens on 127.0.0.1 at a free port and forwards to `targetHost:targetPort`. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let state: "linked" | "cut" | "stalled" = "linked";
  const live = new Set<Socket>();
  /** Connections that swallowed bytes: their protocol stream is broken for good. */
  const broken = new Set<Socket>();
  const track = (socket: Socket) => {
    live.add(socket);
    socket.on("close", () => {
      live.delete(socket);
      broken.delete(socket);
    });
    // A reset peer is the point of the exercise, not a failure of the test.
    socket.on("error", () => {});
  };
  /** Forwards `from` to `to` while linked; otherwise swallows the bytes. */
  const forward = (from: Socket, to: Socket) =>
    from.on("data", (chunk) => {
      if (state === "linked" && !broken.has(from)) to.write(chunk);
      else broken.add(from).add(to);
    });
  const server = createServer((client) => {
    if (state === "cut") {
      client.on("error", () => {});
      client.destroy();
      return;
    }
    track(client);
    if (state === "stalled") {
      broken.add(client);
      return;
    }
    const upstream = createConnection({ host: targetHost, port: targetPort });
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no TCP address");
  const drop = (sockets: Iterable<Socket>) => {
    for (const socket of [...sockets]) socket.destroy();
  };
  return {
    port: address.port,
    cut: () => {
      state = "cut";
      drop(live);
    },
    stall: () => {
      state = "stalled";
    },
    restore: () => {
      state = "linked";
      drop(broken);
    },
    close: () => {
      drop(live);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
