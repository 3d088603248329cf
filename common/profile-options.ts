/**
 * The choices offered for the optional "about me" fields of a profile (`GET /user-additional`).
 * One list shared by the API (which validates against it) and the client forms.
 */
export interface ProfileOption {
  value: string;
  text: string;
}

const opts = (...values: Array<[string, string]>): ProfileOption[] => values.map(([value, text]) => ({ value, text }));

export const profileOptions = {
  genders: opts(['female', 'Female'], ['male', 'Male'], ['transgender', 'Transgender'], ['non-binary', 'Non-binary']),
  sexualOrientations: opts(['straight', 'Straight'], ['gay', 'Gay'], ['lesbian', 'Lesbian'], ['bisexual', 'Bisexual'], ['pansexual', 'Pansexual']),
  ethnicities: opts(['asian', 'Asian'], ['black', 'Black'], ['latina', 'Latina / Latino'], ['middle-eastern', 'Middle Eastern'], ['mixed', 'Mixed'], ['white', 'White'], ['other', 'Other']),
  bodyTypes: opts(['slim', 'Slim'], ['athletic', 'Athletic'], ['average', 'Average'], ['curvy', 'Curvy'], ['muscular', 'Muscular'], ['plus', 'Plus size']),
  hairColors: opts(['black', 'Black'], ['brown', 'Brown'], ['blonde', 'Blonde'], ['red', 'Red'], ['grey', 'Grey'], ['dyed', 'Dyed'], ['none', 'None']),
  eyeColors: opts(['brown', 'Brown'], ['blue', 'Blue'], ['green', 'Green'], ['hazel', 'Hazel'], ['grey', 'Grey']),
  /** Centimetres, 140–210 in steps of 5, shown with feet and inches. */
  heights: Array.from({ length: 15 }, (_, i) => {
    const cm = 140 + i * 5;
    const inches = Math.round(cm / 2.54);
    return { value: String(cm), text: `${cm} cm (${Math.floor(inches / 12)}'${inches % 12}")` };
  }),
  /** Kilograms, 40–130 in steps of 5, shown with pounds. */
  weights: Array.from({ length: 19 }, (_, i) => {
    const kg = 40 + i * 5;
    return { value: String(kg), text: `${kg} kg (${Math.round(kg * 2.20462)} lb)` };
  }),
} satisfies Record<string, ProfileOption[]>;

export type ProfileOptions = typeof profileOptions;
