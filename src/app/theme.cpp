#include "theme.h"

#include "common/appsettings.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

#include <Qsci/qscilexerpython.h>
#include <Qsci/qsciscintilla.h>

namespace {
Theme::Kind g_current = Theme::Kind::Light;

struct EditorColors
{
    QColor paper, text, margin, marginText, caretLine, keyword, comment, string, number, name, decorator,
        operatorColor, braceMatch, selection;
};

EditorColors colorsFor(Theme::Kind kind)
{
    if (kind == Theme::Kind::Dark)
        return {QColor(0x1e1f22), QColor(0xd4d4d4), QColor(0x2b2d30), QColor(0x858585), QColor(0x26282b),
                QColor(0x569cd6), QColor(0x6a9955), QColor(0xce9178), QColor(0xb5cea8), QColor(0xdcdcaa),
                QColor(0xc586c0), QColor(0xd4d4d4), QColor(0x3a6e3a), QColor(0x264f78)};
    return {QColor(0xffffff), QColor(0x1f1f1f), QColor(0xf0f0f0), QColor(0x6e6e6e), QColor(0xf5f8ff),
            QColor(0x0033b3), QColor(0x8c8c8c), QColor(0x067d17), QColor(0x1750eb), QColor(0x00627a),
            QColor(0x9e880d), QColor(0x1f1f1f), QColor(0xb4eeb4), QColor(0xa6d2ff)};
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b2d30), base(0x1e1f22), text(0xdfe1e5), disabled(0x6f737a), highlight(0x2f65ca);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(0x589df6));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Disabled, QPalette::Text, disabled);
    p.setColor(QPalette::Disabled, QPalette::ButtonText, disabled);
    p.setColor(QPalette::Disabled, QPalette::WindowText, disabled);
    return p;
}
} // namespace

QColor Theme::statusColor(Status status)
{
    // Light: Material 800 tones on white; dark: 300 tones, which keep their contrast on the dark palette.
    const bool dark = g_current == Kind::Dark;
    switch (status) {
    case Status::Good:
        return dark ? QColor(0x81c784) : QColor(0x2e7d32);
    case Status::Bad:
        return dark ? QColor(0xe57373) : QColor(0xc62828);
    case Status::Warning:
        return dark ? QColor(0xffb74d) : QColor(0xef6c00);
    case Status::Busy:
        return dark ? QColor(0x64b5f6) : QColor(0x1565c0);
    case Status::Idle:
        break;
    }
    return dark ? QColor(0x9e9e9e) : QColor(0x757575);
}

QString Theme::statusHtml(Status status, const QString &html)
{
    return QStringLiteral("<span style='color:%1'>%2</span>").arg(statusColor(status).name(), html);
}

Theme::Kind Theme::current()
{
    return g_current;
}

void Theme::setCurrent(Kind kind)
{
    g_current = kind;
    // Fusion draws the palette faithfully on every platform; native styles ignore parts of a dark palette.
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(kind == Kind::Dark ? darkPalette() : QApplication::style()->standardPalette());
}

Theme::Kind Theme::loadSaved()
{
    return fromName(AppSettings::theme.value());
}

void Theme::save(Kind kind)
{
    AppSettings::theme.set(name(kind));
}

QString Theme::name(Kind kind)
{
    return kind == Kind::Dark ? QStringLiteral("dark") : QStringLiteral("light");
}

Theme::Kind Theme::fromName(const QString &value)
{
    return value.compare(QStringLiteral("dark"), Qt::CaseInsensitive) == 0 ? Kind::Dark : Kind::Light;
}

void Theme::applyToEditor(QsciScintilla *editor, Kind kind)
{
    const EditorColors c = colorsFor(kind);
    if (auto *lexer = qobject_cast<QsciLexerPython *>(editor->lexer())) {
        lexer->setDefaultPaper(c.paper);
        lexer->setDefaultColor(c.text);
        for (int style = 0; style <= QsciLexerPython::DoubleQuotedFString; ++style) {
            lexer->setPaper(c.paper, style);
            lexer->setColor(c.text, style);
        }
        lexer->setColor(c.keyword, QsciLexerPython::Keyword);
        lexer->setColor(c.comment, QsciLexerPython::Comment);
        lexer->setColor(c.comment, QsciLexerPython::CommentBlock);
        for (int style :
             {QsciLexerPython::SingleQuotedString, QsciLexerPython::DoubleQuotedString,
              QsciLexerPython::TripleSingleQuotedString, QsciLexerPython::TripleDoubleQuotedString,
              QsciLexerPython::SingleQuotedFString, QsciLexerPython::DoubleQuotedFString,
              QsciLexerPython::TripleSingleQuotedFString, QsciLexerPython::TripleDoubleQuotedFString})
            lexer->setColor(c.string, style);
        lexer->setColor(c.number, QsciLexerPython::Number);
        lexer->setColor(c.name, QsciLexerPython::FunctionMethodName);
        lexer->setColor(c.name, QsciLexerPython::ClassName);
        lexer->setColor(c.decorator, QsciLexerPython::Decorator);
        lexer->setColor(c.decorator, QsciLexerPython::HighlightedIdentifier);
        lexer->setColor(c.operatorColor, QsciLexerPython::Operator);
    }
    editor->setMarginsBackgroundColor(c.margin);
    editor->setMarginsForegroundColor(c.marginText);
    editor->setFoldMarginColors(c.margin, c.margin);
    editor->setCaretLineBackgroundColor(c.caretLine);
    editor->setCaretForegroundColor(c.text);
    editor->setMatchedBraceBackgroundColor(c.braceMatch);
    editor->setSelectionBackgroundColor(c.selection);
}
