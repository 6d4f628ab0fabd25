import pkg from '../../package.json' with { type: 'json' };

/** The package's version, inlined by the bundler. */
export const VERSION: string = pkg.version;
