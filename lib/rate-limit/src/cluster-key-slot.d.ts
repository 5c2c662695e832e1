// Types of cluster-key-slot 1.1 (the CRC16 hash-slot function ioredis itself uses; the package ships none).
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0-16383) of `key`, honouring a `{hash tag}`. */
  export default function generate(key: string | Buffer): number;
}
