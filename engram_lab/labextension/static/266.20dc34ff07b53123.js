"use strict";(self.rspackChunkengram_lab=self.rspackChunkengram_lab||[]).push([[266],{646(e,r,n){var a=n(601),o=n.n(a),t=n(314),i=n.n(t),p=n(417),l=n.n(p),c=new URL(n(67),n.b),s=new URL(n(347),n.b),g=i()(o()),d=l()(c),m=l()(s);g.push([e.id,`.jp-engram-sidebar { padding: 6px; overflow-x: hidden; overflow-y: auto; font-size: var(--jp-ui-font-size1); background: var(--jp-layout-color1); box-sizing: border-box; min-width: 0; }
.jp-engram-sidebar * { box-sizing: border-box; }
.jp-engram-vault { display: flex; align-items: center; gap: 4px; margin-bottom: 4px; min-width: 0; }
.jp-engram-vault-name { flex: 1; min-width: 0; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.jp-engram-vault-switch { width: 100%; margin-bottom: 4px; }
.jp-engram-search, .jp-engram-filter { width: 100%; margin: 2px 0; }
.jp-engram-filter { margin-top: 8px; }
.jp-engram-message, .jp-engram-summary, .jp-engram-where, .jp-engram-filters { color: var(--jp-ui-font-color2); overflow-wrap: anywhere; }
.jp-engram-filters:empty, .jp-engram-message:empty { display: none; }
.jp-engram-weak { color: var(--jp-warn-color1); }
.jp-engram-results { padding-left: 18px; margin: 4px 0; }
.jp-engram-result { margin-bottom: 6px; overflow-wrap: anywhere; }
.jp-engram-snippet { display: block; color: var(--jp-ui-font-color1); font-size: var(--jp-ui-font-size0); }
.jp-engram-where { font-size: var(--jp-ui-font-size0); }
.jp-engram-hit { background: var(--jp-warn-color3); color: inherit; padding: 0; }
.jp-engram-warn { color: var(--jp-warn-color1); }
.jp-engram-reindex { white-space: nowrap; flex: none; padding: 0 6px; height: 22px; }
.jp-engram-tree { margin-top: 2px; }
.jp-engram-folder { margin-left: 0; }
.jp-engram-folder .jp-engram-folder, .jp-engram-folder .jp-engram-note { margin-left: 12px; }
.jp-engram-folder-name { cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding: 1px 0; }
.jp-engram-count { color: var(--jp-ui-font-color2); font-size: var(--jp-ui-font-size0); margin-left: 6px; }
.jp-engram-note { display: flex; align-items: center; gap: 4px; min-width: 0; padding: 1px 0; }
.jp-engram-note-link { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; color: var(--jp-ui-font-color1); text-decoration: none; }
.jp-engram-note-link:hover { text-decoration: underline; }
.jp-engram-dot { flex: none; width: 7px; height: 7px; border-radius: 50%; background: var(--jp-success-color1); }
.jp-engram-status-stale .jp-engram-dot, .jp-engram-status-new .jp-engram-dot { background: var(--jp-warn-color1); }
.jp-engram-status-failed .jp-engram-dot { background: var(--jp-error-color1); }
.jp-engram-status-pending-review .jp-engram-dot { background: var(--jp-info-color1); }
.jp-engram-badge { flex: none; font-size: 9px; line-height: 14px; padding: 0 4px; border-radius: 7px; color: white; background: var(--jp-warn-color1); }
.jp-engram-badge-failed { background: var(--jp-error-color1); }
.jp-engram-badge-pending-review { background: var(--jp-info-color1); }
.jp-engram-learn label { display: block; margin-bottom: 6px; }
.jp-engram-learn input, .jp-engram-learn textarea { width: 100%; box-sizing: border-box; }
.jp-engram-triples td, .jp-engram-triples th { padding: 2px 6px; text-align: left; }
.jp-engram-icon, .jp-engram-vault-icon, .jp-engram-related-icon {
  display: inline-block; width: 16px; height: 16px; flex: none; background-repeat: no-repeat; background-position: center; background-size: 16px;
  background-image: url(${d});
}
.jp-engram-related { padding: 6px; overflow-x: hidden; overflow-y: auto; font-size: var(--jp-ui-font-size1); background: var(--jp-layout-color1); box-sizing: border-box; min-width: 0; }
.jp-engram-related-heading { font-weight: 600; margin-bottom: 6px; overflow-wrap: anywhere; }
.jp-engram-related-list { margin: 0; padding-left: 18px; }
.jp-engram-related-list > li { margin-bottom: 6px; }
.jp-engram-related-note { color: var(--jp-content-link-color); text-decoration: none; overflow-wrap: anywhere; }
.jp-engram-related-reasons { margin: 1px 0 0; padding-left: 0; list-style: none; color: var(--jp-ui-font-color2); overflow-wrap: anywhere; }
.jp-engram-graph-icon {
  display: inline-block; width: 16px; height: 16px; flex: none; background-repeat: no-repeat; background-position: center; background-size: 16px;
  background-image: url(${m});
}
.jp-engram-graph-panel { padding: 6px; overflow: auto; font-size: var(--jp-ui-font-size1); background: var(--jp-layout-color1); box-sizing: border-box; min-width: 0; }
.jp-engram-graph-bar { display: flex; align-items: center; gap: 6px; margin-bottom: 4px; }
.jp-engram-graph-heading { flex: 1; font-weight: 600; overflow-wrap: anywhere; }
.jp-engram-graph-body .engram-graph .controls .muted { display: block; }
`,""]),n.d(r,{},{A:g})},314(e){e.exports=function(e){var r=[];return r.toString=function(){return this.map(function(r){var n="",a=void 0!==r[5];return r[4]&&(n+="@supports (".concat(r[4],") {")),r[2]&&(n+="@media ".concat(r[2]," {")),a&&(n+="@layer".concat(r[5].length>0?" ".concat(r[5]):""," {")),n+=e(r),a&&(n+="}"),r[2]&&(n+="}"),r[4]&&(n+="}"),n}).join("")},r.i=function(e,n,a,o,t){"string"==typeof e&&(e=[[null,e,void 0]]);var i={};if(a)for(var p=0;p<this.length;p++){var l=this[p][0];null!=l&&(i[l]=!0)}for(var c=0;c<e.length;c++){var s=[].concat(e[c]);a&&i[s[0]]||(void 0!==t&&(void 0===s[5]||(s[1]="@layer".concat(s[5].length>0?" ".concat(s[5]):""," {").concat(s[1],"}")),s[5]=t),n&&(s[2]&&(s[1]="@media ".concat(s[2]," {").concat(s[1],"}")),s[2]=n),o&&(s[4]?(s[1]="@supports (".concat(s[4],") {").concat(s[1],"}"),s[4]=o):s[4]="".concat(o)),r.push(s))}},r}},417(e){e.exports=function(e,r){return(r||(r={}),e&&(e=String(e.__esModule?e.default:e),/^['"].*['"]$/.test(e)&&(e=e.slice(1,-1)),r.hash&&(e+=r.hash),/["'() \t\n]|(%20)/.test(e)||r.needQuotes))?'"'.concat(e.replace(/"/g,'\\"').replace(/\n/g,"\\n"),'"'):e}},601(e){e.exports=function(e){return e[1]}},665(e,r,n){n.r(r);var a=n(72),o=n.n(a),t=n(825),i=n.n(t),p=n(659),l=n.n(p),c=n(56),s=n.n(c),g=n(540),d=n.n(g),m=n(113),u=n.n(m),f=n(646),h={};h.styleTagTransform=u(),h.setAttributes=s(),h.insert=l().bind(null,"head"),h.domAPI=i(),h.insertStyleElement=d(),o()(f.A,h);let v=f.A&&f.A.locals?f.A.locals:void 0;n.d(r,{},{default:v})},72(e){var r=[];function n(e){for(var n=-1,a=0;a<r.length;a++)if(r[a].identifier===e){n=a;break}return n}function a(e,a){for(var o={},t=[],i=0;i<e.length;i++){var p=e[i],l=a.base?p[0]+a.base:p[0],c=o[l]||0,s="".concat(l," ").concat(c);o[l]=c+1;var g=n(s),d={css:p[1],media:p[2],sourceMap:p[3],supports:p[4],layer:p[5]};if(-1!==g)r[g].references++,r[g].updater(d);else{var m=function(e,r){var n=r.domAPI(r);return n.update(e),function(r){r?(r.css!==e.css||r.media!==e.media||r.sourceMap!==e.sourceMap||r.supports!==e.supports||r.layer!==e.layer)&&n.update(e=r):n.remove()}}(d,a);a.byIndex=i,r.splice(i,0,{identifier:s,updater:m,references:1})}t.push(s)}return t}e.exports=function(e,o){var t=a(e=e||[],o=o||{});return function(e){e=e||[];for(var i=0;i<t.length;i++){var p=n(t[i]);r[p].references--}for(var l=a(e,o),c=0;c<t.length;c++){var s=n(t[c]);0===r[s].references&&(r[s].updater(),r.splice(s,1))}t=l}}},659(e){var r={};e.exports=function(e,n){var a=function(e){if(void 0===r[e]){var n=document.querySelector(e);if(window.HTMLIFrameElement&&n instanceof window.HTMLIFrameElement)try{n=n.contentDocument.head}catch(e){n=null}r[e]=n}return r[e]}(e);if(!a)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");a.appendChild(n)}},540(e){e.exports=function(e){var r=document.createElement("style");return e.setAttributes(r,e.attributes),e.insert(r,e.options),r}},56(e,r,n){e.exports=function(e){var r=n.nc;r&&e.setAttribute("nonce",r)}},825(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var r=e.insertStyleElement(e);return{update:function(n){var a,o,t;a="",n.supports&&(a+="@supports (".concat(n.supports,") {")),n.media&&(a+="@media ".concat(n.media," {")),(o=void 0!==n.layer)&&(a+="@layer".concat(n.layer.length>0?" ".concat(n.layer):""," {")),a+=n.css,o&&(a+="}"),n.media&&(a+="}"),n.supports&&(a+="}"),(t=n.sourceMap)&&"u">typeof btoa&&(a+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(t))))," */")),e.styleTagTransform(a,r,e.options)},remove:function(){var e;null===(e=r).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,r){if(r.styleSheet)r.styleSheet.cssText=e;else{for(;r.firstChild;)r.removeChild(r.firstChild);r.appendChild(document.createTextNode(e))}}},347(e){e.exports="data:image/svg+xml;utf8,<svg xmlns=%27http://www.w3.org/2000/svg%27 viewBox=%270 0 16 16%27><g stroke=%27%23616161%27 stroke-width=%271.2%27><path d=%27M8 8L3 3M8 8l5-3M8 8l-4 5M8 8l5 5%27/></g><circle cx=%278%27 cy=%278%27 r=%272.6%27 fill=%27%23222%27/><g fill=%27%234e79a7%27><circle cx=%273%27 cy=%273%27 r=%271.8%27/><circle cx=%2713%27 cy=%275%27 r=%271.8%27/><circle cx=%274%27 cy=%2713%27 r=%271.8%27/><circle cx=%2713%27 cy=%2713%27 r=%271.8%27/></g></svg>"},67(e){e.exports="data:image/svg+xml;utf8,<svg xmlns=%27http://www.w3.org/2000/svg%27 viewBox=%270 0 16 16%27><g stroke=%27%23616161%27 stroke-width=%271.3%27 fill=%27none%27><path d=%27M4 4l8 2M4 4l2 8M12 6l-6 6M12 6l1 6%27/></g><g fill=%27%23f57c00%27><circle cx=%274%27 cy=%274%27 r=%272.2%27/><circle cx=%2712%27 cy=%276%27 r=%272%27/><circle cx=%276%27 cy=%2712%27 r=%272%27/><circle cx=%2713%27 cy=%2712.5%27 r=%271.5%27/></g></svg>"}}]);