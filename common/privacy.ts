/** Data rights, what a page may load without zod: the word a person types to confirm deleting their account. */
export const DELETE_CONFIRMATION = 'DELETE';
