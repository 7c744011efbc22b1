// The mails the sign-in routes send, from the shared sender: plain text, a link or a code each.
export interface AuthMail {
  subject: string;
  text: string;
}

export function verificationMail(link: string): AuthMail {
  return {
    subject: 'Confirm your email address',
    text: [
      'Welcome to Postbox.',
      '',
      'Confirm your email address by opening this link within 24 hours:',
      link,
      '',
      'If you did not sign up, do not open the link: ignore this message, and the account stays unconfirmed.',
      // The remedy of a person whose address someone else signed up with (docs/api-decisions.md, "Sign-in cannot be pre-hijacked").
      'Signing in with a code mailed to this address makes the account yours: it removes the password whoever signed up chose, and signs them out.',
      '',
    ].join('\n'),
  };
}

export function loginCodeMail(code: string): AuthMail {
  return {
    subject: `Your sign-in code: ${code}`,
    text: [`Your sign-in code is ${code}.`, '', 'It works once, for 10 minutes.', '', 'If you did not ask for it, ignore this message; nobody can sign in without it.', ''].join('\n'),
  };
}

export function passwordResetMail(link: string): AuthMail {
  return {
    subject: 'Reset your password',
    text: ['Set a new password by opening this link within an hour:', link, '', 'If you did not ask for it, ignore this message; your password stays as it is.', ''].join('\n'),
  };
}
