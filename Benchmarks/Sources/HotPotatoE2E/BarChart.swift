import Foundation

/// A horizontal bar chart as an SVG document: groups of bars (one group a scenario), each bar
/// labelled with its value, HotPotato's bars (or ratios in its favour) in one colour and the rest in another. Plain SVG
/// 1.1 with no script or external reference, so that GitHub and any browser show it as an image.
struct BarChart {
    struct Bar {
        let label: String
        let value: Double
        /// Drawn in HotPotato's colour: a HotPotato row, or a ratio in HotPotato's favour.
        let highlighted: Bool
    }

    struct Group {
        let title: String
        let bars: [Bar]
    }

    let title: String
    /// What the values are, under the title (`"MiB/s, more is better"`).
    let subtitle: String
    let groups: [Group]
    /// How a value is written beside its bar.
    let format: (Double) -> String
    /// A vertical line at this value (`1` for a chart of ratios), drawn and labelled.
    var reference: Double?
    /// Each group scaled to its own largest bar, for groups whose values differ by orders of
    /// magnitude (one scenario's MiB/s beside another's); otherwise one scale for the chart.
    var scalesEachGroup = false

    private static let width = 980.0
    private static let labelWidth = 400.0
    private static let valueWidth = 90.0
    private static let barHeight = 16.0
    private static let barGap = 4.0
    private static let groupGap = 14.0
    private static let groupTitleHeight = 20.0
    private static let top = 58.0

    var svg: String {
        let plotWidth = Self.width - Self.labelWidth - Self.valueWidth - 20
        let chartMax = groups.flatMap { $0.bars.map(\.value) }.filter(\.isFinite).max() ?? 1
        var y = Self.top
        var body = ""
        for group in groups {
            body += text(x: 10, y: y + 14, group.title, weight: "bold")
            y += Self.groupTitleHeight
            let scale = max(scalesEachGroup ? (group.bars.map(\.value).filter(\.isFinite).max() ?? 1) : chartMax, reference ?? 0, 1e-9)
            for bar in group.bars {
                let length = bar.value.isFinite ? max(1, bar.value / scale * plotWidth) : 0
                let colour = bar.highlighted ? "#d9480f" : "#868e96"
                body += text(x: Self.labelWidth - 8, y: y + 12, bar.label, anchor: "end", weight: bar.highlighted ? "bold" : "normal")
                body += String(format: #"<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%@"/>"#,
                               Self.labelWidth, y, length, Self.barHeight, colour) + "\n"
                body += text(x: Self.labelWidth + length + 6, y: y + 12, bar.value.isFinite ? format(bar.value) : "—")
                y += Self.barHeight + Self.barGap
            }
            if scalesEachGroup, let reference { body += referenceLine(at: reference / scale * plotWidth, from: y - groupHeight(group), to: y) }
            y += Self.groupGap
        }
        if !scalesEachGroup, let reference {
            let x = reference / max(chartMax, reference) * plotWidth
            body += referenceLine(at: x, from: Self.top, to: y - Self.groupGap)
            body += text(x: Self.labelWidth + x, y: y + 4, format(reference), anchor: "middle")
            y += 14
        }
        let height = y + 10
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(Self.width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="#ffffff"/>
            \(text(x: 10, y: 22, title, size: 16, weight: "bold"))\(text(x: 10, y: 42, subtitle, fill: "#495057"))\(body)</svg>

            """
    }

    private func groupHeight(_ group: Group) -> Double {
        Double(group.bars.count) * (Self.barHeight + Self.barGap)
    }

    private func referenceLine(at x: Double, from top: Double, to bottom: Double) -> String {
        String(format: ##"<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#1c7ed6" stroke-width="1.5" stroke-dasharray="4 3"/>"##,
               Self.labelWidth + x, top, Self.labelWidth + x, bottom) + "\n"
    }

    private func text(
        x: Double, y: Double, _ content: String, anchor: String = "start", size: Int = 12, weight: String = "normal",
        fill: String = "#212529"
    ) -> String {
        String(format: #"<text x="%.1f" y="%.1f" text-anchor="%@" font-size="%d" font-weight="%@" fill="%@">"#,
               x, y, anchor, size, weight, fill) + Self.escape(content) + "</text>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
