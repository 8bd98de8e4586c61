// Renders one piece of the demo's music into a WAV file (demo-music.ts), on a thread of its own:
// a piece takes about a second of CPU, which the server's own thread spends answering requests.
import { writeFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { renderPiece } from './maqam-music.ts';

const { piece, file } = workerData as { piece: number; file: string };
writeFileSync(file, renderPiece(piece));
