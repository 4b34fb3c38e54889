/** Absolute path of the snapshot file in this package (`world.ipintel`). */
export declare const snapshotPath: string;
