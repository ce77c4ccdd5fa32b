//! The page's innermost blocks of running text, shared by the prose rules.
//!
//! `readability` and `long-sentences` both judge the text of the innermost
//! `p`, `li`, `dd`, `blockquote`, `td` and `figcaption` elements (a `<p>` inside an
//! `<li>` counts once, at the `<p>`). Each used to find them by asking, for every
//! block, whether any element below it is a block too, a walk of the block's
//! whole subtree; the outer blocks of a long list or table made that quadratic.
//! Here every block marks its block ancestors instead (a walk up, stopped at
//! the first ancestor already marked), and the texts are made once per page.
//! `spelling` finds its own innermost blocks (headings included) the same way.

use ego_tree::NodeId;
use rustc_hash::FxHashSet;

use super::{select, selector};
use crate::PageContext;

/// One innermost text block.
#[derive(Debug, Clone)]
pub struct TextBlock {
    /// The block element.
    pub node: NodeId,
    /// Its text, white space folded ([`crate::dom::normalized_text`]); never empty.
    pub text: String,
}

/// The elements matching `sel` that have no matching element below them, in
/// document order.
pub(crate) fn innermost<'a>(
    cx: &'a PageContext<'_>,
    sel: &'static scraper::Selector,
) -> Vec<scraper::ElementRef<'a>> {
    let blocks: Vec<_> = select(cx, sel).collect();
    let ids: FxHashSet<NodeId> = blocks.iter().map(|b| b.id()).collect();
    let mut outer: FxHashSet<NodeId> = FxHashSet::default();
    for block in &blocks {
        if cx.should_stop() {
            break;
        }
        for ancestor in block.ancestors() {
            if ids.contains(&ancestor.id()) && !outer.insert(ancestor.id()) {
                // Marked before, and so were its matching ancestors.
                break;
            }
        }
    }
    blocks
        .into_iter()
        .filter(|b| !outer.contains(&b.id()))
        .collect()
}

/// The innermost text blocks of the page with any text, in document order.
pub(crate) fn innermost_text_blocks(cx: &PageContext<'_>) -> Vec<TextBlock> {
    innermost(cx, selector!("p, li, dd, blockquote, td, figcaption"))
        .into_iter()
        // Past the page's budget the rest is not needed: no rule runs then.
        .take_while(|_| !cx.should_stop())
        .filter_map(|b| {
            let text = crate::dom::normalized_text(b);
            (!text.is_empty()).then_some(TextBlock { node: b.id(), text })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::testing::RuleTester;
    use crate::PageContext;

    #[test]
    fn only_the_innermost_blocks_with_text_in_document_order() {
        let page = RuleTester::page(
            "<ul><li><p>One</p><p>Two</p></li><li>Three</li><li> </li></ul>\
             <table><tr><td><blockquote><p>Four</p></blockquote></td><td>Five <b>bold</b></td></tr></table>",
        );
        let cx = PageContext::parse(&page);
        let texts: Vec<&str> = cx.text_blocks().iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["One", "Two", "Three", "Four", "Five bold"]);
    }
}
