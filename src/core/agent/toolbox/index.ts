export { toolboxDocs } from './docs';
export { JS_TOOLBOX_NAMES } from './js-toolbox-source';
