/**
 * js-libp2p 3 calls `Promise.withResolvers` (ES2024), which Node 20 lacks. Every module of this
 * layer that loads libp2p imports this one first, so the method exists before libp2p runs.
 */

interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const PromiseWithResolvers = Promise as PromiseConstructor & { withResolvers?: <T>() => Resolvers<T> };

if (typeof PromiseWithResolvers.withResolvers !== "function") {
  PromiseWithResolvers.withResolvers = <T>(): Resolvers<T> => {
    let resolve!: Resolvers<T>["resolve"];
    let reject!: Resolvers<T>["reject"];
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

export {};
