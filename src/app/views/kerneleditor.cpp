#include "kerneleditor.h"

#include "applogging.h"
#include "theme.h"

#include <QDragEnterEvent>
#include <QDynamicPropertyChangeEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMimeData>
#include <QRegularExpression>
#include <QSet>
#include <QToolTip>

#include <algorithm>
#include <cmath>

#include <Qsci/qscilexerpython.h>
#include <Qsci/qscistyle.h>

namespace {
QStringList localFiles(const QMimeData *mime)
{
    QStringList paths;
    if (!mime || !mime->hasUrls())
        return paths;
    for (const QUrl &url : mime->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    return paths;
}
} // namespace

KernelEditor::KernelEditor(QWidget *parent) : QsciScintilla(parent)
{
    setUtf8(true);
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    auto *lexer = new QsciLexerPython(this);
    lexer->setDefaultFont(mono);
    lexer->setFont(mono);
    lexer->setFoldComments(true);
    lexer->setIndentationWarning(QsciLexerPython::Inconsistent);
    setLexer(lexer);

    // Completion is our own user list rather than QsciAPIs: QsciAPIs prepares on a worker thread per editor,
    // which crashes when a tab closes mid-preparation, and cannot complete dotted names like nl.affine_range.
    setAutoCompletionSource(QsciScintilla::AcsNone);
    connect(this, &QsciScintilla::SCN_CHARADDED, this, [this](int ch) {
        if (QChar(ch).isLetterOrNumber() || ch == '_' || ch == '.')
            showCompletions(minimumPrefix);
    });
    connect(this, &QsciScintilla::userListActivated, this, &KernelEditor::acceptCompletion);

    setMarginType(0, QsciScintilla::NumberMargin);
    setMarginLineNumbers(0, true);
    setFolding(QsciScintilla::BoxedTreeFoldStyle, 2);
    setBraceMatching(QsciScintilla::SloppyBraceMatch);
    setIndentationsUseTabs(false);
    setIndentationWidth(4);
    setTabWidth(4);
    setAutoIndent(true);
    setIndentationGuides(true);
    setBackspaceUnindents(true);
    setCaretLineVisible(true);
    setEdgeMode(QsciScintilla::EdgeLine);
    setEdgeColumn(120);
    setEolMode(QsciScintilla::EolUnix);

    Theme::applyToEditor(this, Theme::current());
    connect(this, &QsciScintilla::linesChanged, this, &KernelEditor::updateMarginWidth);
    updateMarginWidth();

    // Margin 1 carries the error marker.
    markerDefine(QsciScintilla::Circle, errorMarker);
    setMarkerBackgroundColor(QColor(0xc6, 0x28, 0x28), errorMarker);
    setMarkerForegroundColor(QColor(0xc6, 0x28, 0x28), errorMarker);
    setMarginType(1, QsciScintilla::SymbolMargin);
    setMarginWidth(1, 14);
    setMarginMarkerMask(1, 1 << errorMarker);
    setAnnotationDisplay(QsciScintilla::AnnotationBoxed);
    // The heat gutter: one full-cell marker per level, from pale yellow to deep red.
    for (int level = 0; level < heatLevels; ++level) {
        const int marker = firstHeatMarker + level;
        markerDefine(QsciScintilla::FullRectangle, marker);
        const double t = level / double(heatLevels - 1);
        const QColor color = QColor::fromHsvF(0.16 * (1 - t), 0.25 + 0.7 * t, 1.0 - 0.15 * t);
        setMarkerBackgroundColor(color, marker);
        setMarkerForegroundColor(color, marker);
    }
    setMarginType(heatMargin, QsciScintilla::SymbolMargin);
    setMarginWidth(heatMargin, 0);
    setMarginMarkerMask(heatMargin, ((1 << heatLevels) - 1) << firstHeatMarker);
    // An error, and the heat, are about the text as it was evaluated: the first edit makes them stale.
    connect(this, &QsciScintilla::textChanged, this, [this] {
        if (m_errorLine > 0)
            clearErrors();
        if (m_heat)
            setHeat(nullptr);
    });
}

bool KernelEditor::event(QEvent *event)
{
    // QsciScintilla claims every key without Ctrl or Alt for itself, so typing never triggers a shortcut.
    // Function keys type nothing: leave them to the window's actions (F5 Benchmark, F7 next change, ...).
    if (event->type() == QEvent::ShortcutOverride) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() >= Qt::Key_F1 && key->key() <= Qt::Key_F35) {
            event->ignore();
            return false;
        }
    }
    if (event->type() == QEvent::DynamicPropertyChange &&
        static_cast<QDynamicPropertyChangeEvent *>(event)->propertyName() == "taskName")
        Q_EMIT titleChanged();
    return QsciScintilla::event(event);
}

void KernelEditor::setHeat(const EvalProfilePtr &profile)
{
    m_heat = profile;
    m_heatLevels.clear();
    for (int level = 0; level < heatLevels; ++level)
        markerDeleteAll(firstHeatMarker + level);
    if (!profile || profile->lineCosts.isEmpty()) {
        setMarginWidth(heatMargin, 0);
        return;
    }
    // Levels by share of the hottest line's time, so the hottest line is always the deepest colour.
    double hottest = 0;
    for (const EvalProfile::LineCost &c : profile->lineCosts)
        if (c.line > 0)
            hottest = std::max(hottest, c.totalNs());
    m_heatLevels.fill(0, lines());
    for (const EvalProfile::LineCost &c : profile->lineCosts) {
        if (c.line <= 0 || c.line > lines() || hottest <= 0 || c.totalNs() <= 0)
            continue;
        const int level = std::clamp(int(std::ceil(c.totalNs() / hottest * (heatLevels - 1))), 1, heatLevels - 1);
        m_heatLevels[c.line - 1] = level;
        markerAdd(c.line - 1, firstHeatMarker + level);
    }
    setMarginWidth(heatMargin, 10);
}

int KernelEditor::heatLevel(int line) const
{
    if (!m_heat)
        return -1;
    return line >= 1 && line <= m_heatLevels.size() ? m_heatLevels.at(line - 1) : 0;
}

QString KernelEditor::heatToolTip(int line) const
{
    if (!m_heat)
        return {};
    const EvalProfile::LineCost *c = m_heat->costOfLine(line);
    if (!c || c->totalNs() <= 0)
        return tr("line %1: no instructions").arg(line);
    const double total = m_heat->totalLineNs();
    QString text = tr("<b>line %1</b>: %2 % of the kernel's engine time<br>").arg(line).arg(total > 0 ? 100 * c->totalNs() / total : 0, 0, 'f', 1);
    for (int e = 0; e < EvalProfile::EngineCount; ++e)
        if (c->ns[e] > 0)
            text += tr("%1 %2 µs<br>").arg(EvalProfile::engineLabel(e)).arg(c->ns[e] / 1e3, 0, 'f', 2);
    text += tr("%1 instructions, %2 bytes").arg(QLocale().toString(c->instructions), QLocale().toString(c->bytes));
    return text;
}

bool KernelEditor::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_heat) {
        auto *help = static_cast<QHelpEvent *>(event);
        int left = 0;
        for (int m = 0; m < heatMargin; ++m)
            left += marginWidth(m);
        if (help->pos().x() >= left && help->pos().x() < left + marginWidth(heatMargin)) {
            // The nearest position to the point, not lineAt(): that one answers -1 over a margin.
            const long pos = SendScintilla(SCI_POSITIONFROMPOINT, static_cast<unsigned long>(help->pos().x()),
                                           static_cast<long>(help->pos().y()));
            const int line = int(SendScintilla(SCI_LINEFROMPOSITION, static_cast<unsigned long>(pos)));
            if (line >= 0) {
                QToolTip::showText(help->globalPos(), heatToolTip(line + 1), viewport());
                return true;
            }
        }
    }
    return QsciScintilla::viewportEvent(event);
}

void KernelEditor::markError(int line, const QString &message)
{
    clearErrors();
    if (line < 1 || line > lines())
        return;
    m_errorLine = line;
    markerAdd(line - 1, errorMarker);
    QsciStyle style(-1, QStringLiteral("error"), QColor(0x8b, 0x1a, 0x1a), QColor(0xfd, 0xec, 0xea), font());
    annotate(line - 1, message.left(400), style);
}

void KernelEditor::clearErrors()
{
    m_errorLine = 0;
    markerDeleteAll(errorMarker);
    clearAnnotations();
}

void KernelEditor::goToLine(int line)
{
    if (line < 1)
        return;
    setCursorPosition(std::min(line, lines()) - 1, 0);
    ensureLineVisible(line - 1);
    setFocus();
}

QString KernelEditor::displayName() const
{
    return m_filePath.isEmpty() ? m_untitledName : QFileInfo(m_filePath).fileName();
}

QString KernelEditor::title() const
{
    const QString task = property("taskName").toString();
    return task.isEmpty() ? displayName() : QStringLiteral("%1 · %2").arg(task, displayName());
}

const QStringList &KernelEditor::nkiApiWords()
{
    static const QStringList words = [] {
        QStringList list;
        QFile file(QStringLiteral(":/nki/api-words.txt"));
        if (!file.open(QIODevice::ReadOnly)) {
            qCWarning(lcEditor) << "NKI completion word list missing from resources";
            return list;
        }
        for (const QByteArray &line : file.readAll().split('\n')) {
            const QString word = QString::fromUtf8(line).trimmed();
            if (!word.isEmpty() && !word.startsWith(u'#'))
                list << word;
        }
        return list;
    }();
    return words;
}

QString KernelEditor::prefixAtCursor() const
{
    int line = 0, column = 0;
    getCursorPosition(&line, &column);
    const QString before = text(line).left(column);
    int start = int(before.size());
    while (start > 0 && (before.at(start - 1).isLetterOrNumber() || before.at(start - 1) == u'_' ||
                         before.at(start - 1) == u'.'))
        --start;
    return before.mid(start);
}

QStringList KernelEditor::completionsFor(const QString &prefix) const
{
    QSet<QString> found;
    for (const QString &word : nkiApiWords())
        if (word.startsWith(prefix) && word != prefix)
            found.insert(word);
    // The document's own names too (loop variables, tiles), dotted or not; bounded so huge files stay
    // responsive.
    static const QRegularExpression identifier(
        QStringLiteral("[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*"));
    const QString body = text().left(maxScannedChars);
    for (auto it = identifier.globalMatch(body); it.hasNext();) {
        const QString word = it.next().captured();
        if (word.startsWith(prefix) && word != prefix)
            found.insert(word);
    }
    QStringList list(found.begin(), found.end());
    list.sort();
    return list;
}

void KernelEditor::showCompletions(int minimumLength)
{
    const QString prefix = prefixAtCursor();
    if (prefix.size() < minimumLength || (!prefix.isEmpty() && prefix.at(0).isDigit()))
        return;
    const QStringList words = completionsFor(prefix);
    if (!words.isEmpty())
        showUserList(completionListId, words);
}

void KernelEditor::acceptCompletion(int id, const QString &word)
{
    if (id != completionListId)
        return;
    const QString prefix = prefixAtCursor();
    int line = 0, column = 0;
    getCursorPosition(&line, &column);
    setSelection(line, column - int(prefix.size()), line, column);
    replaceSelectedText(word);
}

void KernelEditor::updateMarginWidth()
{
    setMarginWidth(0, QStringLiteral("0%1").arg(lines()));
}

void KernelEditor::dragEnterEvent(QDragEnterEvent *event)
{
    if (!localFiles(event->mimeData()).isEmpty()) {
        event->acceptProposedAction();
        return;
    }
    QsciScintilla::dragEnterEvent(event);
}

void KernelEditor::dragMoveEvent(QDragMoveEvent *event)
{
    if (!localFiles(event->mimeData()).isEmpty()) {
        event->acceptProposedAction();
        return;
    }
    QsciScintilla::dragMoveEvent(event);
}

void KernelEditor::dropEvent(QDropEvent *event)
{
    const QStringList paths = localFiles(event->mimeData());
    if (!paths.isEmpty()) {
        event->acceptProposedAction();
        Q_EMIT filesDropped(paths);
        return;
    }
    QsciScintilla::dropEvent(event);
}
