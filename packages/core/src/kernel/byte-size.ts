function formatBytes(bytes: number): string {
  return bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
}

/** A size as people read it, and exactly when that rounds: `1.5 MB (1572864 bytes)`, `900 bytes`. */
export function exactBytes(bytes: number): string {
  return bytes >= 1024 ? `${formatBytes(bytes)} (${bytes} bytes)` : `${bytes} bytes`;
}
