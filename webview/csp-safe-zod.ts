import { z } from "zod";

// Zod's fast path probes `new Function`, which a strict CSP reports as a violation even
// though the probe's error is caught. Imported first by main.ts, before any parse.
z.config({ jitless: true });
