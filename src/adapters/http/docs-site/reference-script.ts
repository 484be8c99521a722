// What the reference page runs after Swagger UI's bundle: the page's own
// script file, never inline (the CSP allows scripts from 'self' only). It
// reads the document the api serves, shows every operation with its
// operationId, with a filter, and asks no outside validator.
export const REFERENCE_SCRIPT = `'use strict';
window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle({
    url: '/v2/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayOperationId: true,
    filter: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;
