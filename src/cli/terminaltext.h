#pragma once

#include <QString>

// Text that came from elsewhere (a model's lesson, a kernel's prints, an imported memory) printed to a terminal
// as text, not as commands: an escape sequence in it could clear the screen, set the window title or hide what
// follows, and a bidirectional override can show code other than what is there. Such characters are printed as
// visible escapes (\x1b, \u202e) instead.
class TerminalText
{
public:
    // One line: every control character, line breaks included, is escaped.
    static QString line(const QString &text);
    // Several lines: line breaks and tabs stay, every other control character is escaped.
    static QString block(const QString &text);
};
