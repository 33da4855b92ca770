import { writeFileSync } from 'node:fs';
import { renderEnvExample } from '../src/config/render-env-example.js';

writeFileSync(new URL('../.env.example', import.meta.url), renderEnvExample());
