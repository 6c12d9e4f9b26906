/**
 * How the dashboard writes numbers, amounts, times and IDs. Amounts arrive as decimal strings
 * of base units (TIP-25: a u64 does not fit a JSON number) and stay bigints until written.
 */

/** The base token as `GET /api/core/v2/info` describes it (TIP-25 `baseToken`). */
export interface BaseTokenFormat {
  unit: string;
  subunit?: string;
  decimals: number;
  useMetricPrefix: boolean;
}

/**
 * The locale's number formats by fraction digits, made once: `toLocaleString` with options builds
 * an `Intl.NumberFormat` at each call, which the live pages, rewriting their counts every second,
 * felt (the Live tangle's main thread, bench dashboard).
 */
const numberFormats = new Map<number, Intl.NumberFormat>();

/** Thousands separators of the user's locale. */
export function formatNumber(n: number | bigint, maximumFractionDigits = 0): string {
  let format = numberFormats.get(maximumFractionDigits);
  if (format === undefined) {
    format = new Intl.NumberFormat(undefined, { maximumFractionDigits, minimumFractionDigits: 0 });
    // (a caller's fraction digits are few: 0 to a handful)
    if (numberFormats.size < 16) numberFormats.set(maximumFractionDigits, format);
  }
  return format.format(n);
}

/** A percentage of 0-100 with one decimal. */
export function formatPercent(n: number): string {
  return `${n.toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;
}

/** A decimal string or number of base units as a bigint; undefined when it is not one. */
export function toBigInt(amount: string | number | bigint): bigint | undefined {
  if (typeof amount === "bigint") return amount;
  if (typeof amount === "number") return Number.isSafeInteger(amount) ? BigInt(amount) : undefined;
  return /^[0-9]{1,40}$/.test(amount) ? BigInt(amount) : undefined;
}

/**
 * An amount of base units in the token's unit (`decimals` places), trailing zeros cut:
 * `1500000` with 6 decimals and unit "SMR" is "1.5 SMR". Without a token description, the raw
 * base units ("1,500,000").
 */
export function formatAmount(amount: string | number | bigint, token?: BaseTokenFormat): string {
  const value = toBigInt(amount);
  if (value === undefined) return String(amount);
  if (!token || token.decimals <= 0) return `${formatNumber(value)}${token ? ` ${token.unit}` : ""}`;
  const scale = 10n ** BigInt(token.decimals);
  const whole = value / scale;
  const fraction = (value % scale).toString().padStart(token.decimals, "0").replace(/0+$/, "");
  return `${formatNumber(whole)}${fraction ? `.${fraction}` : ""} ${token.unit}`;
}

/** Bytes in KiB/MiB/GiB with one decimal. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${value.toLocaleString(undefined, { maximumFractionDigits: i === 0 ? 0 : 1 })} ${units[i]}`;
}

/** A duration in seconds as "3d 4h 5m", "4h 5m 6s" or "5m 6s". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (d > 0) return `${d}d ${h}h ${m}m`;
  if (h > 0) return `${h}h ${m}m ${rest}s`;
  return `${m}m ${rest}s`;
}

/** A unix time in seconds as the user's local date and time. */
export function formatTime(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toLocaleString(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}

/** How long ago a unix time (seconds) was: "12 s ago", "3 min ago", or the date. */
export function formatAgo(unixSeconds: number, nowMs = Date.now()): string {
  const ago = Math.round(nowMs / 1000 - unixSeconds);
  if (ago < 0) return "just now";
  if (ago < 60) return `${ago} s ago`;
  if (ago < 3600) return `${Math.floor(ago / 60)} min ago`;
  return formatTime(unixSeconds);
}

/**
 * A long hex ID shortened to its first and last `keep` digits: "0x1a2b3c…7d8e9f". IDs shorter
 * than that are left whole.
 */
export function shortHex(hex: string, keep = 6): string {
  const body = hex.startsWith("0x") ? hex.slice(2) : hex;
  if (body.length <= keep * 2 + 1) return hex;
  return `${hex.startsWith("0x") ? "0x" : ""}${body.slice(0, keep)}…${body.slice(-keep)}`;
}

/** A bech32 address shortened after its HRP and separator: "tst1qp3x…9f8e". */
export function shortBech32(address: string, keep = 6): string {
  const sep = address.lastIndexOf("1");
  if (sep < 0 || address.length <= sep + 1 + keep * 2 + 1) return address;
  return `${address.slice(0, sep + 1 + keep)}…${address.slice(-keep)}`;
}
